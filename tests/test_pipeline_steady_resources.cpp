// An operator runs the daemons unattended for weeks: what one job opens must be closed by the time it is done.
// After a warm-up (pools, sockets, caches and the API's channels made), further rounds of the same work leave every
// daemon with no more open file descriptors and no more threads than the warm-up left it: valid jobs of several
// partitions through ZeroMQ, Prove calls through the gRPC API (`cuzk api load`), jobs whose proofs do not verify,
// malformed frames to each daemon and status requests. A leak of one descriptor or thread per job or call would
// show as a count above the baseline after every round (a daemon's sockets to clients that have left close
// asynchronously: a count gets a few seconds to come back down).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "common/circuits/registry.hpp"
#include "common/groth16/setup.hpp"
#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;
using namespace std::chrono_literals;

namespace {

const char* const stages[] = {"assemblerd", "synthd", "gpud"};

// Entries of /proc/<pid>/<what> (fd: open file descriptors; task: threads); -1 when it cannot be read.
long entries(pid_t pid, const char* what) {
    std::error_code ec;
    long n = 0;
    for (std::filesystem::directory_iterator it(fmt::format("/proc/{}/{}", pid, what), ec), end; !ec && it != end;
         it.increment(ec))
        ++n;
    return ec ? -1 : n;
}

// VmRSS of |pid| in MiB, for the printout only: the allocators keep what they freed, and the jobs kept until
// [assemblerd] result_ttl_s grow it legitimately, so it is not asserted.
double rss_mib(pid_t pid) {
    std::ifstream in(fmt::format("/proc/{}/status", pid));
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("VmRSS:")) return std::stod(line.substr(6)) / 1024.0;
    return -1;
}

struct counts {
    long fds = 0, threads = 0;
    bool operator==(const counts&) const = default;
};

// Entries of /proc/<pid>/fd and /proc/<pid>/task.
counts read_counts(pid_t pid) { return counts{entries(pid, "fd"), entries(pid, "task")}; }

// |stage|'s counts once two readings 300 ms apart agree (at most |limit|; the last reading then).
counts settled(const pipeline& sut, const std::string& stage, std::chrono::milliseconds limit = 10s) {
    counts last = read_counts(sut.pid(stage));
    for (const auto deadline = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < deadline;) {
        std::this_thread::sleep_for(300ms);
        const counts now = read_counts(sut.pid(stage));
        if (now == last) return now;
        last = now;
    }
    return last;
}

// |stage|'s counts once within |bound| (a socket to a client that has left closes asynchronously, a pool's idle
// thread leaves after a while), or the last reading after |limit|.
counts within(const pipeline& sut, const std::string& stage, const counts& bound, std::chrono::milliseconds limit = 15s) {
    counts now = read_counts(sut.pid(stage));
    for (const auto deadline = std::chrono::steady_clock::now() + limit;
         (now.fds > bound.fds || now.threads > bound.threads) && std::chrono::steady_clock::now() < deadline;) {
        std::this_thread::sleep_for(200ms);
        now = read_counts(sut.pid(stage));
    }
    return now;
}

}  // namespace

TEST(PipelineSteadyResources, RoundsOfJobsLeaveNoDescriptorOrThreadBehind) {
    pipeline sut({.synth_threads = 2, .gpud_workers = 2, .gpud_backend = "cpu"});
    // mul:32's verifying key from another setup than its parameters: its jobs fail verification (an error path).
    const auto dir = sut.config().gpud.params_dir;
    std::filesystem::create_directories(dir);
    const auto circuit = circuits::make_circuit("mul:32");
    groth16::write_parameters(daemon::params_path(dir, "mul:32"), groth16::generate_random_parameters(*circuit).params);
    groth16::write_vk(daemon::vk_path(dir, "mul:32"), groth16::generate_random_parameters(*circuit).params.vk);
    sut.start_all();
    const std::string cfg = " --config " + sut.config_path().string();
    std::uint64_t seed = 1;
    auto round = [&] {
        std::vector<std::uint64_t> valid;
        for (int j = 0; j < 4; ++j) valid.push_back(sut.submit_ok("mul:512", 3, seed++));
        const std::uint64_t failing = sut.submit_ok("mul:32", 2, seed++);
        const auto api = cuzk::test::run_cuzk("api load" + cfg + " --calls 8 --circuit mul:64");
        EXPECT_EQ(api.exit_code, 0) << api.output;
        for (const auto* stage : stages)  // each answers with an error and keeps serving
            EXPECT_TRUE(sut.call_raw(stage, "not a cuzk frame").has_value()) << stage;
        for (const std::uint64_t id : valid) EXPECT_EQ(sut.await(id).state, ipc::job_state::done) << "job " << id;
        EXPECT_EQ(sut.await(failing).state, ipc::job_state::failed);
        EXPECT_FALSE(sut.status_text().empty());
    };
    for (int warm_up = 0; warm_up < 2; ++warm_up) round();
    std::map<std::string, counts> baseline;
    for (const auto* stage : stages) {
        baseline[stage] = settled(sut, stage);
        ASSERT_GT(baseline[stage].fds, 0) << stage;
        std::printf("%-10s after the warm-up: %ld descriptors, %ld threads, %.1f MiB resident\n", stage,
                    baseline[stage].fds, baseline[stage].threads, rss_mib(sut.pid(stage)));
    }
    // Descriptors exactly; threads with a slack of 4 for pools that may grow under a burst (gRPC's server
    // threads): a thread per job or call would be 13 more per round.
    constexpr long thread_slack = 4;
    for (int r = 1; r <= 3; ++r) {
        round();
        for (const auto* stage : stages) {
            const counts bound{baseline[stage].fds, baseline[stage].threads + thread_slack};
            const counts now = within(sut, stage, bound);
            std::printf("%-10s after round %d: %ld descriptors, %ld threads, %.1f MiB resident\n", stage, r, now.fds,
                        now.threads, rss_mib(sut.pid(stage)));
            EXPECT_LE(now.fds, baseline[stage].fds) << stage << " after round " << r;
            EXPECT_LE(now.threads, bound.threads) << stage << " after round " << r;
        }
    }
}
