// A disk that fills while jobs run (issue: "ENOSPC while writing a result kills assemblerd"). A file size limit on
// assemblerd stands for the full disk: every write past 64 bytes fails as ENOSPC would. assemblerd keeps serving,
// the job stays running with the reason in the status, nothing of it is lost, and when space returns its PROOF
// records, result and DONE record are written and the job ends valid; a restart then replays it as done.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "support/pipeline.hpp"

using namespace cuzk;
using namespace std::chrono_literals;
using cuzk::test::pipeline;

namespace {

// Sets the soft limit only, so that an unprivileged test can raise it back up to the hard one.
void limit_file_size(pid_t pid, rlim_t bytes) {
    rlimit now{};
    ASSERT_EQ(::prlimit(pid, RLIMIT_FSIZE, nullptr, &now), 0);
    rlimit next{bytes, now.rlim_max};
    ASSERT_EQ(::prlimit(pid, RLIMIT_FSIZE, &next, nullptr), 0) << std::strerror(errno);
}

nlohmann::json job_status(const pipeline& sut, std::uint64_t id) {
    const auto s = nlohmann::json::parse(sut.status_text());
    for (const auto& j : s["jobs"])
        if (j["job"].get<std::uint64_t>() == id) return j;
    return {};
}

}  // namespace

TEST(PipelineFullDisk, AssemblerdRidesOutAFullDiskAndFinishesTheJobWhenSpaceReturns) {
    pipeline sut({.gpud_backend = "cpu"});
    sut.start_all();
    const auto warm = sut.submit_ok("mul:64", 2, 1);  // the parameters exist before the disk fills
    sut.expect_valid(sut.await(warm), "mul:64", 2, 1);

    // Journaled while there is room; proved while there is none.
    sut.stop("gpud");
    const auto job = sut.submit_ok("mul:64", 2, 5);
    ASSERT_NE(job, 0u);
    const pid_t assemblerd = sut.pid("assemblerd");
    rlimit before{};
    ASSERT_EQ(::prlimit(assemblerd, RLIMIT_FSIZE, nullptr, &before), 0);
    limit_file_size(assemblerd, 64);
    sut.start("gpud");

    // Both proofs arrive and are refused by the disk: assemblerd serves on and says why the job waits.
    nlohmann::json stuck;
    for (int i = 0; i < 100 && !stuck.contains("write_error"); ++i) {
        std::this_thread::sleep_for(100ms);
        stuck = job_status(sut, job);
    }
    ASSERT_TRUE(stuck.contains("write_error")) << sut.status_text();
    std::this_thread::sleep_for(1s);  // a few retry sweeps against the full disk
    ASSERT_EQ(::waitpid(assemblerd, nullptr, WNOHANG), 0) << "assemblerd exited on the full disk";
    stuck = job_status(sut, job);
    EXPECT_EQ(stuck["state"], "running") << stuck.dump();
    EXPECT_NE(stuck["write_error"].get<std::string>().find("PROOF record"), std::string::npos) << stuck.dump();

    // Space returns: the job ends, valid, without being proved again.
    limit_file_size(assemblerd, before.rlim_cur);
    const auto done = sut.await(job, 30s);
    sut.expect_valid(done, "mul:64", 2, 5);
    EXPECT_FALSE(job_status(sut, job).contains("write_error"));

    // What was written late replays: the job is done with its proof after a restart.
    sut.stop("assemblerd");
    sut.start("assemblerd");
    sut.expect_valid(sut.await(job, 30s), "mul:64", 2, 5);
}
