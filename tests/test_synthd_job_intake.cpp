// synthd's JOB intake (synthd/job_intake.hpp): the JOBs waiting for their input to be read are taken highest
// priority first, then in arrival order, so a WinningPoSt is read before the PoRep C1s that came ahead of it; a
// cancel drops a job's unread JOBs; close wakes a waiting reader.
#include <gtest/gtest.h>

#include <chrono>
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
