// `cuzk status`'s summary lines from a status document alone (cli/status_summary.cpp): the "params GPU N" line of
// each gpud, with the sets it holds, those it is loading and the host bytes of their points given back once on the
// GPU, and the "GPU N" line's warnings from the backend's counters. The other lines are checked against real daemons in
// test_pipeline_cli_status.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

#include "cli/status_summary.hpp"
#include "daemon/config.hpp"

using namespace cuzk;
using nlohmann::json;

namespace {

// The text after the 14-column label |label| in |summary|; empty when no line has it.
std::string line_labelled(const std::string& summary, const std::string& label) {
    std::istringstream in(summary);
    for (std::string l; std::getline(in, l);)
        if (l.size() > 14 && l.compare(0, label.size(), label) == 0 &&
            l.find_first_not_of(' ', label.size()) == 14)
            return l.substr(14);
    return "";
}

json gpud(int gpu, json params, json counters = json::object()) {
    return {{"stage", "gpud"}, {"gpu", gpu}, {"pid", 100 + gpu}, {"backend", "cuda"}, {"workers", json::array()},
            {"params", std::move(params)}, {"backend_counters", std::move(counters)}};
}

}  // namespace

TEST(CliStatusSummary, ParamsLineNamesEachSetItsSizeAndTheHostCopyGivenBack) {
    const daemon::config c;
    const json porep = {{"circuit", "porep:StackedDrg32GiBV1_1"}, {"bytes", std::uint64_t(51064000000)},
                        {"users", 2}, {"load_ms", 23000}, {"synthetic", false}};
    const json winning = {{"circuit", "winning_post:StackedDrgWinning32GiBV1"}, {"bytes", std::uint64_t(3) << 30},
                          {"users", 0}, {"load_ms", 900}, {"synthetic", true}};
    const json status = {{"gpuds", json::array({gpud(0, json::array({porep, winning}),
                                                     {{"host_points_released_bytes", std::uint64_t(50) << 30}}),
                                                gpud(1, json::array())})}};
    const std::string out = cli::status_summary(status, c);
    EXPECT_EQ(line_labelled(out, "params GPU 0"),
              "porep:StackedDrg32GiBV1_1 47.6 GiB, winning_post:StackedDrgWinning32GiBV1 3.0 GiB (SYNTHETIC: proofs "
              "not valid); their host copy given back: 50.0 GiB")
        << out;
    EXPECT_EQ(line_labelled(out, "params GPU 1"), "none loaded") << out;
}

TEST(CliStatusSummary, NoParamsLineWithoutAGpudAndNothingGivenBackWhereNotCounted) {
    const daemon::config c;
    EXPECT_EQ(line_labelled(cli::status_summary(json::object(), c), "params GPU 0"), "");
    const json set = {{"circuit", "mul:64"}, {"bytes", 4096}};
    const std::string out = cli::status_summary({{"gpuds", json::array({gpud(0, json::array({set}))})}}, c);
    EXPECT_EQ(line_labelled(out, "params GPU 0"), "mul:64 4.0 KiB") << out;
}

// After a start with [gpud] preload a gpud may still be loading its sets (minutes at 32 GiB): said after the ones it
// holds, so an operator knows the first partitions of those will wait.
TEST(CliStatusSummary, ParamsLineNamesTheSetsBeingLoaded) {
    const daemon::config c;
    auto g0 = gpud(0, json::array());
    g0["params_loading"] = json::array({"porep:StackedDrg32GiBV1_1", "post:StackedDrgWindow32GiBV1_1"});
    auto g1 = gpud(1, json::array({json{{"circuit", "mul:64"}, {"bytes", 4096}}}));
    g1["params_loading"] = json::array({"post:StackedDrgWinning32GiBV1"});
    const std::string out = cli::status_summary({{"gpuds", json::array({g0, g1})}}, c);
    EXPECT_EQ(line_labelled(out, "params GPU 0"),
              "none loaded; loading porep:StackedDrg32GiBV1_1, post:StackedDrgWindow32GiBV1_1")
        << out;
    EXPECT_EQ(line_labelled(out, "params GPU 1"), "mul:64 4.0 KiB; loading post:StackedDrgWinning32GiBV1") << out;
}

// A side lane turned off and the out-of-memory replans are said on the GPU's line; nothing where the counters are 0
// or absent (the CPU backend reports none).
TEST(CliStatusSummary, GpuLineWarnsOfASideLaneTurnedOffAndOfOutOfMemoryReplans) {
    const daemon::config c;
    json cuda = gpud(0, json::array(), {{"side_lane_off", 1}, {"out_of_memory_replans", 2}});
    cuda["device"] = {{"name", "NVIDIA H200"}, {"total_bytes", std::uint64_t(140) << 30},
                      {"free_bytes", std::uint64_t(20) << 30}};
    json quiet = gpud(1, json::array(), {{"side_lane_off", 0}, {"out_of_memory_replans", 1}});
    json cpu = gpud(2, json::array());
    cpu["backend"] = "cpu";
    const std::string out = cli::status_summary({{"gpuds", json::array({cuda, quiet, cpu})}}, c);
    EXPECT_EQ(line_labelled(out, "GPU 0"),
              "NVIDIA H200, 20.0 GiB free of 140.0 GiB; side lane OFF (a run beside the lock failed): WinningPoSts "
              "wait for the CUDA lock until gpud restarts; 2 out-of-memory replans")
        << out;
    EXPECT_EQ(line_labelled(out, "GPU 1"), "no GPU device (cuda backend); 1 out-of-memory replan") << out;
    EXPECT_EQ(line_labelled(out, "GPU 2"), "no GPU device (cpu backend)") << out;
}
