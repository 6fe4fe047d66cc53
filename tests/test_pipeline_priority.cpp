// Dispatch order: a later job of higher priority overtakes what is left of an earlier one (the assembler
// hands synthd only a window of partitions at a time), and within a priority jobs go first come, first
// served. Read from the order of synthd's SLOT_READY timeline lines.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "support/pipeline.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

// "job:partition" in the order synthd filled slots.
std::vector<std::string> slot_ready_order(const pipeline& sut) {
    std::vector<std::string> out;
    std::istringstream log(sut.log_of("synthd"));
    for (std::string line; std::getline(log, line);) {
        if (line.rfind("TIMELINE,", 0) != 0 || line.find(",SLOT_READY,") == std::string::npos) continue;
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
    const auto order = slot_ready_order(sut);
    ASSERT_EQ(order.size(), 8u);
    const auto at = [&](const std::string& key) { return std::find(order.begin(), order.end(), key) - order.begin(); };
    const auto l = std::to_string(low), h = std::to_string(high);
    // low:0..3 were handed out before |high| arrived; high:0,1 come before low:4,5.
    EXPECT_LT(at(h + ":0"), at(l + ":4"));
    EXPECT_LT(at(h + ":1"), at(l + ":4"));
    EXPECT_LT(at(l + ":3"), at(l + ":4"));
}
