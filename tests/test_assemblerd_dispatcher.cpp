// The dispatcher: highest priority first, FIFO within a priority, at most a window of partitions in synthesis;
// a JOB that cannot be sent puts its partitions back to pending at once; partitions without news for the
// timeout, or held by a synthd that restarted, are dispatched again.
#include <gtest/gtest.h>

#include <vector>

#include "assemblerd/dispatcher.hpp"
#include "assemblerd/job_table.hpp"

using namespace cuzk;
using cuzk::assemblerd::dispatcher;
using cuzk::assemblerd::job;
using cuzk::assemblerd::job_table;
using cuzk::assemblerd::partition_state;

namespace {

constexpr std::uint64_t timeout_ms = 1000;

struct AssemblerDispatcher : ::testing::Test {
    job_table jobs{60 * 1000};
    std::vector<ipc::job_msg> sent;  // every JOB offered to the sender, sent or not
    bool synthd_takes_jobs = true;
    dispatcher sut{jobs, 2, timeout_ms, "/spool", [this](const ipc::job_msg& m) {
                       sent.push_back(m);
                       return synthd_takes_jobs;
                   }};

    job& add(std::uint64_t id, std::uint32_t partitions, std::int32_t priority = 0) {
        job j;
        j.id = id;
        j.priority = priority;
        j.input = "jobs/" + std::to_string(id) + "/input";
        j.partitions.resize(partitions);
        return jobs.add(std::move(j));
    }
    std::vector<partition_state> states(std::uint64_t id) {
        std::vector<partition_state> out;
        for (const auto& p : jobs.find(id)->partitions) out.push_back(p.state);
        return out;
    }
};

using S = partition_state;

}  // namespace

TEST_F(AssemblerDispatcher, DispatchesUpToTheWindow) {
    add(1, 3);
    sut.dispatch(100);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].job_id, 1u);
    EXPECT_EQ(sent[0].partition_count, 3u);
    EXPECT_EQ(sent[0].partitions, (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ(sent[0].spool_path, "/spool/jobs/1/input");
    EXPECT_EQ(states(1), (std::vector{S::dispatched, S::dispatched, S::pending}));
    EXPECT_EQ(jobs.find(1)->state, ipc::job_state::running);
    // The window is full: nothing more until a partition is synthesized.
    sut.dispatch(110);
    EXPECT_EQ(sent.size(), 1u);
    jobs.find(1)->partitions[0].state = S::synthesized;
    sut.dispatch(120);
    ASSERT_EQ(sent.size(), 2u);
    EXPECT_EQ(sent[1].partitions, (std::vector<std::uint32_t>{2}));
}

TEST_F(AssemblerDispatcher, AJobThatCannotBeSentIsPendingAgainAtOnce) {
    add(1, 3);
    add(2, 1);
    synthd_takes_jobs = false;
    sut.dispatch(100);
    // One attempt per turn: the next JOB would meet the same full queue.
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(states(1), (std::vector{S::pending, S::pending, S::pending}));
    for (const auto& p : jobs.find(1)->partitions) EXPECT_EQ(p.dispatches, 0u);
    EXPECT_EQ(jobs.find(1)->state, ipc::job_state::queued);
    // Well before partition_timeout_s, the next turn sends them.
    synthd_takes_jobs = true;
    sut.dispatch(120);
    ASSERT_EQ(sent.size(), 2u);
    EXPECT_EQ(sent[1].job_id, 1u);
    EXPECT_EQ(sent[1].partitions, (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ(states(1), (std::vector{S::dispatched, S::dispatched, S::pending}));
}

TEST_F(AssemblerDispatcher, HighestPriorityFirstThenFifo) {
    add(1, 1, 0);
    add(2, 1, 5);
    add(3, 1, 5);
    sut.dispatch(100);
    ASSERT_EQ(sent.size(), 2u);
    EXPECT_EQ(sent[0].job_id, 2u);
    EXPECT_EQ(sent[1].job_id, 3u);
    EXPECT_EQ(states(1), (std::vector{S::pending}));
}

// A full window of PoRep partitions (their witnesses waiting for ring slots) holds no PoSt back: a job of
// WindowPoSt's priority or above is handed over at once and does not take a place in the window.
TEST_F(AssemblerDispatcher, PostPartitionsGoOutsideTheWindow) {
    add(1, 4, 0);
    sut.dispatch(100);
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(states(1), (std::vector{S::dispatched, S::dispatched, S::pending, S::pending}));
    add(2, 1, ipc::winning_post_priority);
    add(3, 1, ipc::post_priority_floor);
    add(4, 1, ipc::post_priority_floor - 1);
    sut.dispatch(110);
    ASSERT_EQ(sent.size(), 3u);
    EXPECT_EQ(sent[1].job_id, 2u);
    EXPECT_EQ(sent[2].job_id, 3u);
    EXPECT_EQ(states(4), (std::vector{S::pending})) << "below the floor: it waits for the window";
    // They do not count in it: one PoRep partition synthesized makes room for exactly one more.
    jobs.find(1)->partitions[0].state = S::synthesized;
    sut.dispatch(120);
    ASSERT_EQ(sent.size(), 4u);
    EXPECT_EQ(sent[3].job_id, 4u);
    EXPECT_EQ(states(1), (std::vector{S::synthesized, S::dispatched, S::pending, S::pending}));
}

TEST_F(AssemblerDispatcher, NoNewsForTheTimeoutDispatchesAgain) {
    add(1, 2);
    sut.dispatch(100);
    jobs.find(1)->partitions[1].state = S::synthesized;
    jobs.find(1)->partitions[1].since_ms = 500;
    sut.check_timeouts(100 + timeout_ms);
    EXPECT_EQ(states(1), (std::vector{S::dispatched, S::synthesized}));
    sut.check_timeouts(101 + timeout_ms);
    EXPECT_EQ(states(1), (std::vector{S::pending, S::synthesized}));
    sut.check_timeouts(501 + timeout_ms);
    EXPECT_EQ(states(1), (std::vector{S::pending, S::pending}));
}

TEST_F(AssemblerDispatcher, ANewSynthdGetsWhatThePreviousOneHeld) {
    sut.on_synthd_started(10, 50);
    add(1, 2);
    sut.dispatch(100);
    sut.on_synthd_started(10, 50);  // the same process again: nothing changes
    EXPECT_EQ(states(1), (std::vector{S::dispatched, S::dispatched}));
    jobs.find(1)->partitions[1].since_ms = 300;  // dispatched after the new synthd started
    sut.on_synthd_started(11, 200);
    EXPECT_EQ(states(1), (std::vector{S::pending, S::dispatched}));
}
