// synthd's JOB intake (synthd/job_intake.hpp): the JOBs waiting for their input to be read are taken highest
// priority first, then in arrival order, so a WinningPoSt is read before the PoRep C1s that came ahead of it; the
// PoSt reader takes only JOBs of a PoSt's priority; a cancel drops a job's unread JOBs; close wakes a reader.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "synthd/job_intake.hpp"

using namespace cuzk;
using namespace cuzk::synthd;
using namespace std::chrono_literals;

namespace {

pending_job job(std::uint64_t id, std::int32_t priority) {
    pending_job p;
    p.job.job_id = id;
    p.job.priority = priority;
    p.envelope.emplace_back("sender", 6);
    return p;
}

}  // namespace

TEST(SynthdJobIntake, HigherPriorityIsReadFirstThenArrival) {
    job_intake in;
    in.push(job(1, 0));
    in.push(job(2, 0));
    in.push(job(3, ipc::winning_post_priority));
    in.push(job(4, ipc::post_priority_floor));
    in.push(job(5, 0));
    EXPECT_EQ(in.waiting(), 5u);
    std::vector<std::uint64_t> order;
    while (auto p = in.pop(0ms)) {
        order.push_back(p->job.job_id);
        ASSERT_EQ(p->envelope.size(), 1u) << "the sender travels with the JOB, to be answered";
        EXPECT_EQ(p->envelope[0].to_string(), "sender");
    }
    EXPECT_EQ(order, (std::vector<std::uint64_t>{3, 4, 1, 2, 5}));
    EXPECT_EQ(in.waiting(), 0u);
}

TEST(SynthdJobIntake, ACancelDropsTheJobsUnreadJobsOnly) {
    job_intake in;
    in.push(job(7, 0));
    in.push(job(8, 0));
    in.push(job(7, 0));  // a re-dispatch of job 7 before its first JOB was read
    EXPECT_EQ(in.drop_job(7), 2u);
    EXPECT_EQ(in.drop_job(9), 0u);
    auto p = in.pop(0ms);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->job.job_id, 8u);
    EXPECT_FALSE(in.pop(0ms));
}

TEST(SynthdJobIntake, CloseWakesAWaitingReaderAndEndsTheIntake) {
    job_intake in;
    std::thread closer([&] {
        std::this_thread::sleep_for(50ms);
        in.close();
    });
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_FALSE(in.pop(10s));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s) << "close() must wake the reader, not its timeout";
    closer.join();
    in.push(job(1, 0));
    EXPECT_FALSE(in.pop(0ms)) << "nothing is read once closed";
}

TEST(SynthdJobIntake, ThePostReaderTakesOnlyPostJobsAndWakesForOne) {
    job_intake in;
    in.push(job(1, 0));  // a PoRep C1, first in line
    EXPECT_FALSE(in.pop(20ms, ipc::post_priority_floor)) << "the PoSt reader leaves a PoRep JOB to the other";
    std::optional<pending_job> taken;
    std::thread post_reader([&] { taken = in.pop(5s, ipc::post_priority_floor); });
    std::this_thread::sleep_for(50ms);
    in.push(job(2, ipc::winning_post_priority));
    post_reader.join();
    ASSERT_TRUE(taken) << "a WinningPoSt wakes the PoSt reader";
    EXPECT_EQ(taken->job.job_id, 2u);
    auto rest = in.pop(0ms);
    ASSERT_TRUE(rest);
    EXPECT_EQ(rest->job.job_id, 1u);
}
