// One gpud per GPU against one assemblerd, synthd and ring, as cuzk-gpud@0 and cuzk-gpud@1 run them: two gpud
// processes (--gpu 0 and --gpu 1, CPU backend, each with its own CUDA lock) prove the partitions of several
// jobs between them, all valid; a second gpud for a GPU already served is refused; `cuzk status` lists both;
// a cancel reaches both; and when one is killed mid-run, the other reclaims its slots and finishes the jobs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

cuzk::test::pipeline_options two_gpus(cuzk::test::pipeline_options o = {}) {
    o.gpud_backend = "cpu";
    return o;
}

void start_two_gpuds(pipeline& sut) {
    sut.start("assemblerd");
    sut.start("synthd");
    sut.start("gpud", 0);
    sut.start("gpud", 1);
}

// GPU_START lines (the kernels under the CUDA lock) tagged gpu=|gpu| in |log|.
std::size_t gpu_starts(const std::string& log, int gpu) {
    std::istringstream in(log);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);)
        n += line.starts_with("TIMELINE,") && line.find(",GPU_START,") != std::string::npos &&
             line.ends_with(fmt::format(",gpu={}", gpu));
    return n;
}

nlohmann::json status_of(const pipeline& sut, const std::string& name) {
    auto r = sut.call(name, ipc::status_request_msg{}, std::chrono::seconds(5));
    if (!r || !std::holds_alternative<ipc::status_reply_msg>(*r)) return nullptr;
    return nlohmann::json::parse(std::get<ipc::status_reply_msg>(*r).json);
}

std::uint64_t proved_by(const nlohmann::json& gpud) {
    std::uint64_t n = 0;
    for (const auto& w : gpud["workers"]) n += w["proved"].get<std::uint64_t>();
    return n;
}

std::uint32_t partitions_done(const pipeline& sut) {
    try {
        std::uint32_t n = 0;
        for (const auto& job : nlohmann::json::parse(sut.status_text())["jobs"]) n += job["partitions_done"].get<std::uint32_t>();
        return n;
    } catch (const std::exception&) {
        return 0;
    }
}

// Runs |command|, returning its standard output and exit status.
std::pair<std::string, int> run(const std::string& command) {
    auto r = cuzk::test::run_command(command, false);
    return {r.output, r.exit_code};
}

}  // namespace

TEST(PipelineMultiGpu, TwoGpudsProveTheJobsBetweenThem) {
    pipeline sut(two_gpus());
    start_two_gpuds(sut);
    const auto gpu0 = status_of(sut, "gpud"), gpu1 = status_of(sut, "gpud-1");
    ASSERT_FALSE(gpu0.is_null());
    ASSERT_FALSE(gpu1.is_null());
    EXPECT_EQ(gpu0["gpu"], 0);
    EXPECT_EQ(gpu1["gpu"], 1);
    EXPECT_EQ(gpu0["cuda_lock"]["name"], sut.lock_name_of(0));
    EXPECT_EQ(gpu1["cuda_lock"]["name"], sut.lock_name_of(1));
    EXPECT_NE(gpu0["pid"], gpu1["pid"]);

    // A second gpud for GPU 1 is refused (its socket is gpud-1's), and gpud-1 goes on serving.
    const auto again = sut.dir() / "gpud-1-again.log";
    const int code = run(fmt::format("{} --config {} --gpu 1 > {} 2>&1", CUZK_GPUD_PATH, sut.config_path(1).string(),
                                     again.string()))
                         .second;
    EXPECT_EQ(code, 2);
    std::ifstream again_log(again);
    const std::string refused((std::istreambuf_iterator<char>(again_log)), std::istreambuf_iterator<char>());
    EXPECT_NE(refused.find("already serves"), std::string::npos) << refused;
    EXPECT_TRUE(sut.answers("gpud-1"));

    const std::string circuit = "mul:1024";
    constexpr std::uint32_t partitions = 3;
    std::vector<std::uint64_t> ids;
    for (std::uint64_t j = 0; j < 4; ++j) ids.push_back(sut.submit_ok(circuit, partitions, 100 * j + 1));
    for (std::size_t j = 0; j < ids.size(); ++j) sut.expect_valid(sut.await(ids[j], std::chrono::seconds(120)), circuit, partitions, 100 * j + 1);

    // Both proved: by their own counts and by their timelines (gpu= of each GPU's lock intervals).
    const auto done0 = proved_by(status_of(sut, "gpud")), done1 = proved_by(status_of(sut, "gpud-1"));
    EXPECT_GE(done0, 1u);
    EXPECT_GE(done1, 1u);
    EXPECT_GE(done0 + done1, 4 * partitions);
    EXPECT_GE(gpu_starts(sut.log_of("gpud"), 0), 1u);
    EXPECT_GE(gpu_starts(sut.log_of("gpud-1"), 1), 1u);
    EXPECT_EQ(gpu_starts(sut.log_of("gpud"), 1), 0u);
    EXPECT_EQ(gpu_starts(sut.log_of("gpud-1"), 0), 0u);

    // `cuzk status` finds both: "gpuds" by GPU, "gpud" the first (GPU 0), as on a single-GPU host.
    const auto [json, status_code] =
        run(fmt::format("{} status --json --runtime-dir {}", CUZK_CLI_PATH, sut.config().runtime.dir.string()));
    ASSERT_EQ(status_code, 0) << json;
    const auto status = nlohmann::json::parse(json);
    ASSERT_EQ(status["gpuds"].size(), 2u) << json;
    EXPECT_EQ(status["gpuds"][0]["gpu"], 0);
    EXPECT_EQ(status["gpuds"][1]["gpu"], 1);
    EXPECT_EQ(status["gpud"]["gpu"], 0);
    EXPECT_EQ(status["gpuds"][1]["socket"], "gpud-1");
    EXPECT_EQ(status["assemblerd"]["stage"], "assemblerd");
}

TEST(PipelineMultiGpu, ACancelReachesEveryGpud) {
    pipeline sut(two_gpus());
    start_two_gpuds(sut);
    const std::string circuit = "mul:4096";
    const auto id = sut.submit_ok(circuit, 8, 1);
    // In flight on both: each gpud has taken a partition of the job.
    ASSERT_TRUE(pipeline::wait_for([&] {
        return gpu_starts(sut.log_of("gpud"), 0) >= 1 && gpu_starts(sut.log_of("gpud-1"), 1) >= 1;
    }, std::chrono::seconds(90))) << sut.status_text();
    auto reply = sut.call("assemblerd", ipc::cancel_msg{id});
    ASSERT_TRUE(reply && std::holds_alternative<ipc::await_reply_msg>(*reply));
    EXPECT_EQ(std::get<ipc::await_reply_msg>(*reply).state, ipc::job_state::cancelled);
    const auto cancelled = fmt::format("job {} cancelled", id);
    for (const auto* gpud : {"gpud", "gpud-1"}) {
        EXPECT_TRUE(pipeline::wait_for([&] { return sut.log_of(gpud).find(cancelled) != std::string::npos; }))
            << gpud << " never heard of the cancel:\n" << sut.log_of(gpud);
    }
    // The job's slots come back, and the service goes on.
    EXPECT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::free) == sut.config().ring.slots; },
                                   std::chrono::seconds(60)));
    const auto next = sut.submit_ok("mul:64", 2, 5);
    sut.expect_valid(sut.await(next), "mul:64", 2, 5);
}

TEST(PipelineMultiGpu, KillingOneGpudMidRunLetsTheOtherFinish) {
    pipeline sut(two_gpus({.slots = 3, .partition_timeout_s = 8}));
    start_two_gpuds(sut);
    const std::string circuit = "mul:2048";
    constexpr std::uint32_t partitions = 3;
    std::vector<std::uint64_t> ids;
    for (std::uint64_t j = 0; j < 3; ++j) ids.push_back(sut.submit_ok(circuit, partitions, 10 * j + 1));
    // Killed mid-run, while it proves: it has proved a partition already and a slot is PROVING under its pid.
    ASSERT_TRUE(pipeline::wait_for([&] { return gpu_starts(sut.log_of("gpud-1"), 1) >= 1; }, std::chrono::seconds(90)))
        << sut.status_text();
    const pid_t victim = sut.pid("gpud-1");
    auto ring = sut.open_ring();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    bool caught = false;
    while (!caught && std::chrono::steady_clock::now() < deadline) {
        for (const auto& s : ring.snapshot()) caught |= s.state == ipc::slot_state::proving && s.holder == victim;
        if (caught) sut.kill9("gpud-1");
        else std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    ASSERT_TRUE(caught) << "gpud-1 never proved a slot: " << sut.status_text();
    ASSERT_LT(partitions_done(sut), 3 * partitions) << "the run ended before the kill: use a larger circuit";

    for (std::size_t j = 0; j < ids.size(); ++j)
        sut.expect_valid(sut.await(ids[j], std::chrono::seconds(120)), circuit, partitions, 10 * j + 1);
    // gpud (GPU 0) took the dead one's slot back (PROVING -> READY) and proved it.
    EXPECT_GE(ring.counters().reclaimed_proving, 1u);
    EXPECT_NE(sut.log_of("gpud").find(fmt::format("reclaimed from dead pid {}", victim)), std::string::npos)
        << sut.log_of("gpud");
    const auto status = nlohmann::json::parse(sut.status_text());
    ASSERT_EQ(status["jobs"].size(), 3u) << status.dump();
    for (const auto& job : status["jobs"]) EXPECT_EQ(job["state"], "done");
    EXPECT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::free) == 3; }, std::chrono::seconds(10)));
}
