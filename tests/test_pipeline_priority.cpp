// Dispatch order: a later job of higher priority overtakes what is left of an earlier one (the assembler
// hands synthd only a window of partitions at a time), and within a priority jobs go first come, first
// served. Read from the order of synthd's SLOT_READY timeline lines. And at the GPU: a WinningPoSt-priority
// partition finds gpud's worker kept for it while the others are busy and starts ahead of the partition queued
// for the CUDA lock (gpud's GPU_START lines), its kernels beside the lock's holder: proved while another process
// holds the lock, where a partition of normal priority waits for it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "support/pipeline.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

// "job:partition" in the order of |event|'s TIMELINE lines in |stage|'s log.
std::vector<std::string> event_order(const pipeline& sut, const std::string& stage, const std::string& event) {
    std::vector<std::string> out;
    std::istringstream log(sut.log_of(stage));
    for (std::string line; std::getline(log, line);) {
        if (line.rfind("TIMELINE,", 0) != 0 || line.find("," + event + ",") == std::string::npos) continue;
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
        out.push_back(f[3] + ":" + f[4].substr(f[4].find('=') + 1));
    }
    return out;
}

}  // namespace

TEST(PipelinePriority, HigherPriorityOvertakesTheRestOfAnEarlierJob) {
    // One synthesis thread, lookahead 1: at most 2 partitions are handed to synthd at a time.
    pipeline sut({.slots = 2, .synth_threads = 1, .partition_timeout_s = 120});
    sut.start("assemblerd");
    sut.start("synthd");
    const auto low = sut.submit_ok("mul:128", 6, 1);
    // The ring holds 2, synthd holds 2 more: the rest of |low| waits in the assembler.
    ASSERT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::ready) == 2; }));
    auto r = sut.submit("mul:128", 2, 100, "", 10);
    ASSERT_TRUE(std::holds_alternative<ipc::submit_reply_msg>(r));
    const auto high = std::get<ipc::submit_reply_msg>(r).job_id;
    sut.start("gpud");
    sut.expect_valid(sut.await(high), "mul:128", 2, 100);
    sut.expect_valid(sut.await(low), "mul:128", 6, 1);
    const auto order = event_order(sut, "synthd", "SLOT_READY");
    ASSERT_EQ(order.size(), 8u);
    const auto at = [&](const std::string& key) { return std::find(order.begin(), order.end(), key) - order.begin(); };
    const auto l = std::to_string(low), h = std::to_string(high);
    // low:0..3 were handed out before |high| arrived; high:0,1 come before low:4,5.
    EXPECT_LT(at(h + ":0"), at(l + ":4"));
    EXPECT_LT(at(h + ":1"), at(l + ":4"));
    EXPECT_LT(at(l + ":3"), at(l + ":4"));
}

// Both workers busy, one holding the CUDA lock and one queued for it: a job of WinningPoSt's priority (200; a
// test circuit here) is taken by the worker kept for it and starts before the waiting partition (beside the
// holder: the test below).
TEST(PipelinePriority, AWinningPoStPassesThePartitionQueuedForTheLock) {
    pipeline sut({.slots = 4, .synth_threads = 2, .gpud_workers = 2, .partition_timeout_s = 120,
                  .slot_bytes = 16 << 20, .gpud_backend = "cpu"});
    sut.start_all();
    // Parameters of both circuits first, so that no generation runs inside the timed part.
    sut.expect_valid(sut.await(sut.submit_ok("mul:65536", 1, 1)), "mul:65536", 1, 1);
    sut.expect_valid(sut.await(sut.submit_ok("mul:64", 1, 2)), "mul:64", 1, 2);
    const auto low = sut.submit_ok("mul:65536", 3, 3);
    auto lock = ipc::cuda_lock::open_or_create(test::lock_named(sut.lock_name_of(0)));
    ASSERT_TRUE(pipeline::wait_for([&] {
        const auto s = lock.state();
        return s.held && s.waiting >= 1;
    }));
    auto r = sut.submit("mul:64", 1, 4, "", 200);
    ASSERT_TRUE(std::holds_alternative<ipc::submit_reply_msg>(r));
    const auto high = std::get<ipc::submit_reply_msg>(r).job_id;
    sut.expect_valid(sut.await(high), "mul:64", 1, 4);
    sut.expect_valid(sut.await(low), "mul:65536", 3, 3);
    const auto order = event_order(sut, "gpud", "GPU_START");
    const auto l = std::to_string(low), h = std::to_string(high);
    const auto at = [&](const std::string& key) { return std::find(order.begin(), order.end(), key) - order.begin(); };
    std::string listed;
    for (const auto& o : order) listed += o + " ";
    // The two warm-up jobs, then the low partition holding the lock when |high| came, then |high|.
    ASSERT_EQ(order.size(), 6u) << listed;
    long low_before = 0;
    for (const auto* p : {":0", ":1", ":2"}) low_before += at(l + p) < at(h + ":0") ? 1 : 0;
    EXPECT_EQ(low_before, 1) << "GPU_START order: " << listed;
}

// Another process holds the CUDA lock (another gpud's partition, say: here the test): a partition of normal
// priority queues for it, and a job of WinningPoSt's priority is proved all the same, its kernels run beside the
// lock (GPU_START beside=lock) while the lock is still held; the queued one proves once the lock is given back.
TEST(PipelinePriority, AWinningPoStRunsBesideTheLocksHolder) {
    pipeline sut({.slots = 4, .synth_threads = 2, .gpud_workers = 2, .partition_timeout_s = 120,
                  .slot_bytes = 16 << 20, .gpud_backend = "cpu"});
    sut.start_all();
    sut.expect_valid(sut.await(sut.submit_ok("mul:64", 1, 1)), "mul:64", 1, 1);  // its parameters made first
    auto lock = ipc::cuda_lock::open_or_create(test::lock_named(sut.lock_name_of(0)));
    auto held = lock.acquire();
    const auto low = sut.submit_ok("mul:64", 1, 2);
    ASSERT_TRUE(pipeline::wait_for([&] { return lock.state().waiting >= 1; })) << "the normal job queues for the lock";
    auto r = sut.submit("mul:64", 1, 3, "", 200);
    ASSERT_TRUE(std::holds_alternative<ipc::submit_reply_msg>(r));
    const auto high = std::get<ipc::submit_reply_msg>(r).job_id;
    sut.expect_valid(sut.await(high), "mul:64", 1, 3);
    EXPECT_TRUE(held.owns_lock());
    EXPECT_EQ(lock.state().waiting, 1u) << "the normal job still waits for the lock";
    const auto started = event_order(sut, "gpud", "GPU_START");
    EXPECT_EQ(std::count(started.begin(), started.end(), std::to_string(low) + ":0"), 0) << "before the release";
    std::istringstream log(sut.log_of("gpud"));
    int beside = 0;
    for (std::string line; std::getline(log, line);) {
        const bool its_start = line.rfind("TIMELINE,", 0) == 0 &&
                               line.find(",GPU_START," + std::to_string(high) + ",") != std::string::npos;
        if (its_start) beside += line.find("beside=lock") != std::string::npos ? 1 : 0;
    }
    EXPECT_EQ(beside, 1) << sut.log_of("gpud");
    held.release();
    sut.expect_valid(sut.await(low), "mul:64", 1, 2);
}

// The same with [gpud] winning_post_beside_lock = false: the WinningPoSt queues for the lock (ahead of the normal
// job queued before it) and is proved once the lock is given back, under it (no beside=lock).
TEST(PipelinePriority, AWinningPoStQueuesForTheLockWhereRunningBesideIsOff) {
    pipeline sut({.slots = 4, .synth_threads = 2, .gpud_workers = 2, .partition_timeout_s = 120,
                  .slot_bytes = 16 << 20, .gpud_backend = "cpu", .extra_config = "winning_post_beside_lock = false"});
    sut.start_all();
    sut.expect_valid(sut.await(sut.submit_ok("mul:64", 1, 1)), "mul:64", 1, 1);
    auto lock = ipc::cuda_lock::open_or_create(test::lock_named(sut.lock_name_of(0)));
    auto held = lock.acquire();
    const auto low = sut.submit_ok("mul:64", 1, 2);
    ASSERT_TRUE(pipeline::wait_for([&] { return lock.state().waiting >= 1; }));
    auto r = sut.submit("mul:64", 1, 3, "", 200);
    ASSERT_TRUE(std::holds_alternative<ipc::submit_reply_msg>(r));
    const auto high = std::get<ipc::submit_reply_msg>(r).job_id;
    ASSERT_TRUE(pipeline::wait_for([&] { return lock.state().waiting >= 2; })) << "the WinningPoSt queues too";
    held.release();
    sut.expect_valid(sut.await(high), "mul:64", 1, 3);
    sut.expect_valid(sut.await(low), "mul:64", 1, 2);
    const auto started = event_order(sut, "gpud", "GPU_START");
    const auto at = [&](const std::string& key) { return std::find(started.begin(), started.end(), key) - started.begin(); };
    EXPECT_LT(at(std::to_string(high) + ":0"), at(std::to_string(low) + ":0")) << "its class goes first";
    EXPECT_EQ(sut.log_of("gpud").find("beside=lock"), std::string::npos);
}
