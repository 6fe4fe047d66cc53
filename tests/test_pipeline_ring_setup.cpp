// The ring's life across configuration changes and `cuzk down`: a ring of another geometry (the configuration's
// [ring] slots changed) that no live process uses is rebuilt at start, logged, where the stages refused to start
// until someone deleted /dev/shm/<ring> by hand; one that a running stage still uses is refused naming that
// stage. `cuzk down` removes the segment (its memory stays taken until a reboot otherwise) unless --keep-ring, and
// never one a live process still uses.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "daemon/ring_setup.hpp"
#include "support/daemons_up.hpp"
#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

namespace fs = std::filesystem;

ipc::ring_config ring_of(const pipeline& sut, std::uint32_t slots) {
    auto rc = daemon::ring_config_of(sut.config());
    rc.slot_count = slots;
    return rc;
}

fs::path segment_of(const pipeline& sut) { return daemon::ring_config_of(sut.config()).segment.backing_path(); }

}  // namespace

TEST(PipelineRingSetup, ARingOfAnotherGeometryThatNoProcessUsesIsRebuilt) {
    pipeline sut;  // 4 slots of 4 MiB
    // Left by an earlier run configured with 2 slots: nothing maps it now.
    (void)ipc::partition_ring::create(ring_of(sut, 2));
    sut.start("assemblerd");
    sut.start("synthd");
    sut.start("gpud");
    EXPECT_NE(sut.log_of("synthd").find(fmt::format("ring '{}' ({}) has 2 slots of 4194304 bytes, the configuration "
                                                    "asks for 4 slots of 4194304 bytes; no process uses it: rebuilt",
                                                    sut.config().ring.name, segment_of(sut).string())),
              std::string::npos)
        << sut.log_of("synthd");
    EXPECT_EQ(sut.open_ring().slot_count(), 4u);
    sut.expect_valid(sut.await(sut.submit_ok("mul:64", 3, 5)), "mul:64", 3, 5);
}

TEST(PipelineRingSetup, ARingOfAnotherGeometryThatARunningStageUsesIsRefusedNamingIt) {
    pipeline sut;
    sut.start("synthd");  // maps the 4-slot ring
    // A gpud whose configuration asks for 2 slots: it must not pull the ring from under synthd.
    auto text = sut.config_text(sut.lock_name_of(0));
    text.replace(text.find("slots = 4"), 9, "slots = 2");
    const auto other = sut.dir() / "two-slots.toml";
    std::ofstream(other) << text;
    const auto gpud = test::run_command(fmt::format("{} --config {}", CUZK_GPUD_PATH, other.string()));
    EXPECT_EQ(gpud.exit_code, 2) << gpud.output;
    EXPECT_NE(gpud.output.find(fmt::format("has 4 slots of 4194304 bytes, the configuration asks for 2 slots of "
                                           "4194304 bytes, and it is still in use by pid {} (cuzk-synthd): stop every "
                                           "stage using it",
                                           sut.pid("synthd"))),
              std::string::npos)
        << gpud.output;
    EXPECT_EQ(sut.open_ring().slot_count(), 4u) << "the ring in use is left as it is";
    EXPECT_TRUE(sut.answers("synthd"));
}

TEST(PipelineRingSetup, DownRemovesTheRingUnlessKeptOrInUse) {
    pipeline sut;
    const std::string cfg = "--config " + sut.config_path().string();
    const test::daemons_up guard{cfg, sut.config().runtime.dir / "logs"};
    const auto segment = segment_of(sut);

    ASSERT_EQ(test::run_cuzk("up " + cfg).exit_code, 0);
    ASSERT_TRUE(fs::exists(segment));
    auto down = test::run_cuzk("down " + cfg);
    EXPECT_EQ(down.exit_code, 0) << down.output;
    EXPECT_NE(down.output.find(fmt::format("ring '{}' removed ({})", sut.config().ring.name, segment.string())),
              std::string::npos)
        << down.output;
    EXPECT_FALSE(fs::exists(segment));

    ASSERT_EQ(test::run_cuzk("up " + cfg).exit_code, 0);
    auto keep = test::run_cuzk("down --keep-ring " + cfg);
    EXPECT_EQ(keep.exit_code, 0) << keep.output;
    EXPECT_NE(keep.output.find(fmt::format("ring '{}' kept (--keep-ring)", sut.config().ring.name)), std::string::npos)
        << keep.output;
    EXPECT_TRUE(fs::exists(segment));

    // A process that maps the ring (this test, as a stage does) keeps it from being removed.
    const auto writer = daemon::open_ring_writer(sut.config());
    auto in_use = test::run_cuzk("down " + cfg);
    EXPECT_EQ(in_use.exit_code, 0) << in_use.output;
    EXPECT_NE(in_use.output.find(fmt::format("ring '{}' ({}) kept: still in use by pid {}", sut.config().ring.name,
                                             segment.string(), ::getpid())),
              std::string::npos)
        << in_use.output;
    EXPECT_TRUE(fs::exists(segment));
}
