// A full ring stalls synthesis without losing a partition, and cancel frees a job's slots.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/pipeline.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

nlohmann::json synthd_status(const pipeline& sut) {
    auto r = sut.call("synthd", ipc::status_request_msg{}, std::chrono::seconds(2));
    return r ? nlohmann::json::parse(std::get<ipc::status_reply_msg>(*r).json) : nlohmann::json{};
}

}  // namespace

TEST(PipelineBackpressure, FullRingStallsSynthesisWithoutLoss) {
    // Long timeout: the stall is deliberate and must not look like a lost partition.
    pipeline sut({.slots = 2, .synth_threads = 1, .partition_timeout_s = 120});
    sut.start("assemblerd");
    sut.start("synthd");
    const auto id = sut.submit_ok("mul:256", 5, 3);
    // No gpud: two partitions fill the ring and the third waits for a slot.
    ASSERT_TRUE(pipeline::wait_for([&] {
        return sut.slots_in(ipc::slot_state::ready) == 2 && synthd_status(sut)["waiting_for_slot"] == 1;
    })) << synthd_status(sut).dump();
    EXPECT_GE(synthd_status(sut)["ring"]["full_claims"].get<std::uint64_t>(), 1u);
    sut.start("gpud");
    const auto r = sut.await(id);
    sut.expect_valid(r, "mul:256", 5, 3);
    EXPECT_EQ(nlohmann::json::parse(sut.status_text())["duplicate_partition_proofs"], 0);
}

TEST(PipelineBackpressure, CancelFreesTheJobsSlots) {
    pipeline sut({.slots = 2, .synth_threads = 1, .partition_timeout_s = 120});
    sut.start("assemblerd");
    sut.start("synthd");
    const auto id = sut.submit_ok("mul:256", 6, 1);
    ASSERT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::ready) == 2; }));
    auto r = sut.call("assemblerd", ipc::cancel_msg{id});
    ASSERT_TRUE(r && std::holds_alternative<ipc::await_reply_msg>(*r));
    EXPECT_EQ(std::get<ipc::await_reply_msg>(*r).state, ipc::job_state::cancelled);
    EXPECT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::free) == 2; }));
    // The waiting synthesis gave up its partition: the ring stays free, synthd idles.
    EXPECT_TRUE(pipeline::wait_for([&] {
        auto s = synthd_status(sut);
        return s["waiting_for_slot"] == 0 && s["queued"] == 0 && s["in_progress"] == 0;
    })) << synthd_status(sut).dump();
    EXPECT_EQ(sut.slots_in(ipc::slot_state::free), 2u);
    EXPECT_EQ(sut.await(id).state, ipc::job_state::cancelled);
    // The pipeline keeps serving the next job.
    sut.start("gpud");
    const auto next = sut.submit_ok("mul:256", 2, 40);
    sut.expect_valid(sut.await(next), "mul:256", 2, 40);
}
