// synthd checks a JOB's counts against the job's own input before it allocates anything per partition (issue:
// "synthd does not bound a JOB's partition count (4 M partitions: 1.2 GB and seconds unresponsive)"): such a
// JOB is refused at once, naming the field, and synthd goes on answering. The circuits of [gpud] preload are sized
// as synthd starts, WinningPoSt's first.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "support/pipeline.hpp"

using namespace cuzk;
using namespace std::chrono_literals;
using cuzk::test::pipeline;

TEST(PipelineSynthdLimits, AJobClaimingMillionsOfPartitionsIsRefusedAtOnce) {
    pipeline sut({.gpud_backend = "cpu"});
    sut.start("synthd");
    const auto input = sut.dir() / "job.json";
    std::ofstream(input) << R"({"circuit": "mul:64", "partitions": 2, "seed": 1})";

    const auto t0 = std::chrono::steady_clock::now();
    const auto r = sut.call("synthd", ipc::job_msg{7, ipc::proof_kind::test_circuit, 0, 4'000'000, {}, input.string()}, 5s);
    const auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_TRUE(r.has_value()) << "synthd did not answer the JOB";
    const auto* e = std::get_if<ipc::error_reply_msg>(&*r);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->code, ipc::error_code::bad_request);
    EXPECT_NE(e->text.find("partition_count 4000000"), std::string::npos) << e->text;
    EXPECT_NE(e->text.find("has 2 partitions"), std::string::npos) << e->text;
    EXPECT_LT(took, 1s);
    EXPECT_TRUE(sut.answers("synthd"));
}

// A witness that cannot fit a ring slot is refused before it is synthesized (issue: "synthd synthesizes a whole
// witness before finding that it does not fit a ring slot; the size is known from the circuit before
// synthesis"): the job fails naming the floor and the slot, no synthesis starts, and synthd serves on.
TEST(PipelineSynthdLimits, AWitnessThatCannotFitASlotIsRefusedBeforeSynthesis) {
    // mul:16384: 16 K aux values, at least ~5.4 KB as bits; 4 KiB slots cannot hold it.
    pipeline sut({.slots = 2, .slot_bytes = 4096, .gpud_backend = "cpu"});
    sut.start_all();
    const auto id = sut.submit_ok("mul:16384", 2, 3);
    const auto r = sut.await(id);
    EXPECT_EQ(r.state, ipc::job_state::failed);
    EXPECT_NE(r.error.find("needs at least"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("raise [ring] slot_bytes"), std::string::npos) << r.error;
    EXPECT_EQ(sut.log_of("synthd").find(fmt::format("SYNTH_START,{},", id)), std::string::npos) << sut.log_of("synthd");
    EXPECT_TRUE(sut.answers("synthd"));
    // A circuit that fits is proved as before.
    const auto next = sut.submit_ok("mul:64", 1, 4);
    sut.expect_valid(sut.await(next), "mul:64", 1, 4);
}

// [gpud] preload names the proofs this machine expects: synthd sizes their circuits as it starts (the count its
// first partition would otherwise wait for), WinningPoSt's first, and a job of one is proved as before.
TEST(PipelineSynthdLimits, TheCircuitsOfGpudPreloadAreSizedAsSynthdStarts) {
    pipeline sut({.gpud_backend = "cpu", .extra_config = "preload = \"mul:4096, post:StackedDrgWinning2KiBV1\""});
    sut.start("synthd");
    const std::string mul = "mul:4096 ([gpud] preload) sized as synthd started: a witness of at least ";
    const std::string winning = "post:StackedDrgWinning2KiBV1 ([gpud] preload) sized as synthd started";
    ASSERT_TRUE(pipeline::wait_for([&] { return sut.log_of("synthd").find(mul) != std::string::npos; }, 30s))
        << sut.log_of("synthd");
    const auto log = sut.log_of("synthd");
    ASSERT_NE(log.find(winning), std::string::npos) << log;
    EXPECT_LT(log.find(winning), log.find(mul)) << log;
    sut.start("assemblerd");
    sut.start("gpud");
    const auto id = sut.submit_ok("mul:4096", 1, 9);
    sut.expect_valid(sut.await(id), "mul:4096", 1, 9);
}
