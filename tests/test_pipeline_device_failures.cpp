// GPU failures through the three daemons, with faults injected into gpud's CPU backend as the CUDA error a
// failing GPU throws (CUZK_GPUD_INJECT_FAULTS, gpud/fault_injection.hpp): a transient failure is retried and
// the job completes with valid proofs while the same gpud goes on serving; a permanent one fails the job after
// [assemblerd] max_partition_attempts with the injected CUDA error in its message, and the service still
// answers and proves once the faults are gone; a lost CUDA context makes gpud report its partition and exit
// with status 1, and a gpud started again finishes the job. A malformed plan is a configuration error (exit 2).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <regex>
#include <string>

#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

const std::string faults_variable = "CUZK_GPUD_INJECT_FAULTS";  // README, "Fault injection"

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

void start_with_faults(pipeline& sut, const std::string& plan) {
    sut.start("assemblerd");
    sut.start("synthd");
    sut.start("gpud", 0, {{faults_variable, plan}});
}

}  // namespace

// every=2: kernels calls 2, 4, ... fail. A partition fails at most twice in a job of 3 (each failure is
// followed by another partition's success), so under the default cap of 3 every job completes.
TEST(PipelineDeviceFailures, ATransientGpuFailureIsRetriedAndTheJobCompletesWhileGpudKeepsServing) {
    pipeline sut;
    start_with_faults(sut, "kernels:every=2");
    const pid_t gpud = sut.pid("gpud");
    const std::string circuit = "mul:512";
    const auto first = sut.await(sut.submit_ok(circuit, 3, 11));
    sut.expect_valid(first, circuit, 3, 11);

    // The faults happened, as device failures, and were dispatched again.
    const auto gpud_log = sut.log_of("gpud");
    EXPECT_NE(gpud_log.find("fault injection is on (a test facility)"), std::string::npos) << gpud_log;
    EXPECT_NE(gpud_log.find("kernels: device failure: kernels call 2 failed (injected by "
                            "CUZK_GPUD_INJECT_FAULTS=kernels:every=2): cudaErrorMemoryAllocation (out of memory) "
                            "(retryable)"),
              std::string::npos)
        << gpud_log;
    EXPECT_NE(sut.log_of("assemblerd").find("(failed attempt 1 of 3: dispatched again)"), std::string::npos)
        << sut.log_of("assemblerd");
    const auto status = nlohmann::json::parse(sut.status_text());
    EXPECT_EQ(status["jobs"][0]["failed_attempts"], 2) << status.dump();

    // The same gpud proves the next job (through its own injected failures).
    const auto second = sut.await(sut.submit_ok(circuit, 2, 12));
    sut.expect_valid(second, circuit, 2, 12);
    EXPECT_EQ(sut.pid("gpud"), gpud);
    EXPECT_TRUE(sut.answers("gpud"));
    EXPECT_GE(occurrences(sut.log_of("gpud"), "(retryable)"), 3u);
}

TEST(PipelineDeviceFailures, APermanentGpuFailureFailsTheJobAfterMaxPartitionAttemptsAndTheServiceGoesOn) {
    pipeline sut({.max_partition_attempts = 2});
    start_with_faults(sut, "kernels:always");
    const auto id = sut.submit_ok("mul:64", 2, 21);
    const auto failed = sut.await(id);
    ASSERT_EQ(failed.state, ipc::job_state::failed) << failed.error;
    EXPECT_TRUE(failed.proof.empty());
    const std::regex expected(
        R"(partition ([01]) failed 2 times; last error: GPU 0 worker [01] kernels: device failure: kernels call \d+ )"
        R"(failed \(injected by CUZK_GPUD_INJECT_FAULTS=kernels:always\): cudaErrorMemoryAllocation \(out of memory\))");
    std::smatch m;
    ASSERT_TRUE(std::regex_match(failed.error, m, expected)) << failed.error;
    // Attempted exactly max_partition_attempts times, not dispatched again after the cap.
    const std::string partition = m[1];
    EXPECT_EQ(occurrences(sut.log_of("gpud"), fmt::format("job {} partition {} (slot", id, partition)), 2u)
        << sut.log_of("gpud");

    // The daemons keep serving: `cuzk status` answers with the job's error and the fault-injecting gpud.
    EXPECT_TRUE(sut.answers("gpud"));
    const auto status = test::run_command(
        std::string(CUZK_CLI_PATH) + " status --json --config " + sut.config_path().string(), false);
    ASSERT_EQ(status.exit_code, 0) << status.output;
    const auto j = nlohmann::json::parse(status.output);
    ASSERT_EQ(j["assemblerd"]["jobs"].size(), 1u) << status.output;
    EXPECT_EQ(j["assemblerd"]["jobs"][0]["state"], "failed");
    EXPECT_EQ(j["assemblerd"]["jobs"][0]["error"], failed.error);
    EXPECT_EQ(j["gpud"]["backend"], "cpu+faults");
    // Every attempt's injected failure is counted in the backend's counters (the other partition's too).
    EXPECT_GE(j["gpud"]["backend_counters"].value("injected_faults", uint64_t(0)), 2u) << status.output;

    // Without the faults, the same assemblerd and synthd prove the next job.
    sut.stop("gpud");
    sut.start("gpud");
    sut.expect_valid(sut.await(sut.submit_ok("mul:64", 2, 22)), "mul:64", 2, 22);
}

TEST(PipelineDeviceFailures, ALostCudaContextExitsGpudWithStatusOneAndTheRestartedGpudFinishesTheJob) {
    pipeline sut;
    // hold: the first partition's prepare waits 3 s, so the other worker is the one whose kernels fail, and
    // that first partition is still in hand (PROVING) when gpud finds the context lost and exits.
    start_with_faults(sut, "kernels:once,lost,hold=3000");
    const pid_t lost = sut.pid("gpud");
    const std::string circuit = "mul:512";
    const auto id = sut.submit_ok(circuit, 3, 31);
    const int status = sut.wait_exit("gpud", std::chrono::seconds(60));
    ASSERT_EQ(status, 1) << sut.log_of("gpud");
    const auto gpud_log = sut.log_of("gpud");
    EXPECT_NE(gpud_log.find("GPU 0: the CUDA context is lost (cudaErrorIllegalAddress"), std::string::npos) << gpud_log;
    EXPECT_NE(gpud_log.find("gpud takes no more slots and exits (status 1) so that systemd (Restart=on-failure) "
                            "starts it with a new context"),
              std::string::npos)
        << gpud_log;

    // The partition in hand reached assemblerd as retryable before gpud went; the job goes on.
    ASSERT_TRUE(pipeline::wait_for([&] {
        return sut.log_of("assemblerd").find("the device is lost") != std::string::npos;
    })) << sut.log_of("assemblerd");
    const auto assemblerd_log = sut.log_of("assemblerd");
    EXPECT_NE(assemblerd_log.find("kernels call 1 failed (injected by CUZK_GPUD_INJECT_FAULTS=kernels:once,lost,"
                                  "hold=3000): cudaErrorIllegalAddress"),
              std::string::npos)
        << assemblerd_log;
    EXPECT_NE(assemblerd_log.find("(failed attempt 1 of 3: dispatched again)"), std::string::npos) << assemblerd_log;
    const auto running = nlohmann::json::parse(sut.status_text());
    EXPECT_NE(running["jobs"][0]["state"], "failed") << running.dump();

    // The partition the other worker held (in its prepare's hold) stays PROVING under the dead gpud, for the
    // next one to reclaim.
    std::size_t left = 0;
    for (const auto& s : sut.open_ring().snapshot()) {
        if (s.state != ipc::slot_state::proving) continue;
        EXPECT_EQ(s.holder, lost) << "slot " << s.slot;
        ++left;
    }
    EXPECT_GE(left, 1u) << gpud_log;

    sut.start("gpud");  // as systemd would, without the faults
    sut.expect_valid(sut.await(id, std::chrono::seconds(90)), circuit, 3, 31);
    EXPECT_NE(sut.log_of("gpud").find("now dead: reclaimed"), std::string::npos) << sut.log_of("gpud");
}

TEST(PipelineDeviceFailures, AMalformedFaultPlanIsAConfigurationErrorExitTwo) {
    pipeline sut;
    // timeout: a gpud that took the value would serve until stopped (exit 124 then).
    const auto r = test::run_command("timeout 30 env " + faults_variable + "=kernels:sometimes " + CUZK_GPUD_PATH +
                                     " --config " + sut.config_path().string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("CUZK_GPUD_INJECT_FAULTS='kernels:sometimes': 'sometimes' is not always, once or every=N"),
              std::string::npos)
        << r.output;
}
