// A service (the stages sharing one runtime directory) owns the shared-memory segments it creates: two services
// configured with the same [ring] name and [gpud] lock_name no longer exchange partitions silently. A stage of
// the second is refused at start while the first runs, naming both runtime directories and the key to change;
// once the first has stopped, the second takes the segments over (logged) and proves its jobs.
#include <gtest/gtest.h>

#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

// Runs |stage| of |sut| in the foreground (it is expected to refuse to start): its exit status and output.
test::command_result start_refused(const pipeline& sut, const std::string& stage) {
    return test::run_command(fmt::format("timeout 20 {} --config {}", pipeline::binary(stage), sut.config_path().string()));
}

}  // namespace

TEST(PipelineServiceSegments, ASecondServiceOnTheSameRingAndLockIsRefusedWhileTheFirstRuns) {
    pipeline first({.gpud_backend = "cpu"});
    first.start_all();
    const auto id = first.submit_ok("mul:64", 2, 1);
    first.expect_valid(first.await(id), "mul:64", 2, 1);

    pipeline second({.gpud_backend = "cpu", .segments_of = first.tag()});
    for (const auto* stage : {"synthd", "gpud"}) {
        const auto r = start_refused(second, stage);
        EXPECT_EQ(r.exit_code, 2) << stage << ": " << r.output;
        EXPECT_NE(r.output.find("belongs to the service of runtime directory " + (first.dir() / "rt").string()),
                  std::string::npos)
            << stage << ": " << r.output;
        EXPECT_NE(r.output.find((second.dir() / "rt").string()), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("[ring] name"), std::string::npos) << r.output;
    }
    // Another ring, the same GPU lock: gpud is refused for the lock.
    pipeline third({.gpud_backend = "cpu", .lock_of = first.tag()});
    const auto r = start_refused(third, "gpud");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(fmt::format("CUDA lock '{}' belongs to the service of runtime directory {}",
                                        first.lock_name_of(0), (first.dir() / "rt").string())),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("[gpud] lock_name"), std::string::npos) << r.output;
    // The first service is undisturbed.
    const auto again = first.submit_ok("mul:64", 2, 2);
    first.expect_valid(first.await(again), "mul:64", 2, 2);

    // Stopped, its segments go to the second service (with a warning), which proves its own job.
    for (const auto* stage : {"gpud", "synthd", "assemblerd"}) first.stop(stage);
    second.start_all();
    EXPECT_NE(second.log_of("synthd").find("no longer runs: taken over by this service"), std::string::npos)
        << second.log_of("synthd");
    EXPECT_NE(second.log_of("gpud").find("no longer runs: taken over by this service"), std::string::npos)
        << second.log_of("gpud");
    const auto mine = second.submit_ok("mul:64", 2, 3);
    second.expect_valid(second.await(mine), "mul:64", 2, 3);
}
