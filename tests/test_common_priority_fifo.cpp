// The stages' queue order (common/util/priority_fifo.hpp): highest priority first, then arrival; the floor test
// the PoSt-only readers use; removal by predicate.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/util/priority_fifo.hpp"

using cuzk::priority_fifo;

TEST(PriorityFifo, HighestPriorityFirstThenArrival) {
    priority_fifo<std::string> q;
    q.push(0, "porep-1");
    q.push(200, "winning");
    q.push(0, "porep-2");
    q.push(100, "window");
    q.push(-5, "low");
    std::vector<std::string> order;
    while (!q.empty()) order.push_back(q.pop());
    EXPECT_EQ(order, (std::vector<std::string>{"winning", "window", "porep-1", "porep-2", "low"}));
}

TEST(PriorityFifo, TheFloorLooksAtTheFirstInLineOnly) {
    priority_fifo<int> q;
    EXPECT_FALSE(q.first_at_least(priority_fifo<int>::any_priority)) << "empty";
    q.push(0, 1);
    EXPECT_TRUE(q.first_at_least(priority_fifo<int>::any_priority));
    EXPECT_FALSE(q.first_at_least(100));
    q.push(100, 2);
    EXPECT_TRUE(q.first_at_least(100));
    EXPECT_EQ(q.pop(), 2);
    EXPECT_FALSE(q.first_at_least(100));
}

TEST(PriorityFifo, EraseIfRemovesMatchesAndKeepsTheOrder) {
    priority_fifo<int> q;
    for (int i = 0; i < 6; ++i) q.push(i % 2 ? 10 : 0, i);
    std::vector<int> seen;
    EXPECT_EQ(q.erase_if([&](int v) {
        seen.push_back(v);
        return v % 3 == 0;
    }),
              2u);
    EXPECT_EQ(seen.size(), 6u) << "the predicate sees each item once";
    EXPECT_EQ(q.size(), 4u);
    std::vector<int> order;
    while (!q.empty()) order.push_back(q.pop());
    EXPECT_EQ(order, (std::vector<int>{1, 5, 2, 4}));
}
