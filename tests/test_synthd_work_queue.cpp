// synthd's work queue: priority first, then arrival; never the same partition twice; and the pop that synthd's
// threads use past the memory budget, which takes only partitions of a PoSt's priority or above.
#include <gtest/gtest.h>

#include <chrono>

#include "synthd/work_queue.hpp"

using namespace cuzk::synthd;
using namespace std::chrono_literals;

namespace {

work_item item(std::uint64_t job, std::uint32_t partition, std::int32_t priority) {
    return {job, partition, priority, "mul:4", nullptr, nullptr, nullptr};
}

}  // namespace

TEST(SynthdWorkQueue, HigherPriorityFirstThenArrivalAndNoPartitionTwice) {
    work_queue q;
    EXPECT_TRUE(q.push(item(1, 0, 0)));
    EXPECT_TRUE(q.push(item(1, 1, 0)));
    EXPECT_TRUE(q.push(item(2, 0, 200)));
    EXPECT_TRUE(q.push(item(3, 0, 100)));
    EXPECT_FALSE(q.push(item(1, 1, 0))) << "already queued";
    std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
    while (auto it = q.pop(0ms)) {
        order.emplace_back(it->job_id, it->partition);
        q.done(it->job_id, it->partition);
    }
    EXPECT_EQ(order, (std::vector<std::pair<std::uint64_t, std::uint32_t>>{{2, 0}, {3, 0}, {1, 0}, {1, 1}}));
}

TEST(SynthdWorkQueue, PastTheBudgetOnlyWorkOfTheFloorOrAboveIsTaken) {
    work_queue q;
    EXPECT_TRUE(q.push(item(1, 0, 0)));
    EXPECT_FALSE(q.pop(20ms, 100)) << "a PoRep partition waits while over the budget";
    EXPECT_EQ(q.queued(), 1u);
    EXPECT_TRUE(q.push(item(2, 0, 200)));  // a WinningPoSt arrives
    auto it = q.pop(20ms, 100);
    ASSERT_TRUE(it);
    EXPECT_EQ(it->job_id, 2u);
    q.done(it->job_id, it->partition);
    EXPECT_FALSE(q.pop(20ms, 100));
    auto rest = q.pop(0ms);
    ASSERT_TRUE(rest);
    EXPECT_EQ(rest->job_id, 1u);
}
