// PARAMS_REQUEST on gpud (CPU backend): a preload loads a set and a second one finds it resident; an evict lets
// it go and a second evict finds nothing; a PoRep set without files is a bad_request naming the files looked
// for; gpud's status lists the resident sets, the device (none here) and pinned memory, and answers while a
// preload is under way, naming the set loading; a partition's proof carries the time its parameters took to
// load; the sets of [gpud] preload are loaded as gpud starts, one at a time and WinningPoSt's first, one that fails
// logged while gpud serves, and one loading as gpud stops abandoned at once.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <thread>

#include "support/pipeline.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

ipc::message params_request(const pipeline& sut, ipc::params_action action, const std::string& circuit) {
    // A preload may generate a test circuit's parameters first: more than the default 5 s on a slow machine.
    auto r = sut.call("gpud", ipc::params_request_msg{action, circuit}, std::chrono::seconds(60));
    EXPECT_TRUE(r.has_value()) << "no reply to PARAMS_REQUEST " << ipc::to_string(action) << " " << circuit;
    return r.value_or(ipc::error_reply_msg{});
}

ipc::params_reply_msg params_ok(const pipeline& sut, ipc::params_action action, const std::string& circuit) {
    const auto r = params_request(sut, action, circuit);
    const auto* ok = std::get_if<ipc::params_reply_msg>(&r);
    EXPECT_NE(ok, nullptr) << (std::holds_alternative<ipc::error_reply_msg>(r) ? std::get<ipc::error_reply_msg>(r).text
                                                                                : "");
    return ok ? *ok : ipc::params_reply_msg{};
}

nlohmann::json gpud_status(const pipeline& sut) {
    const auto r = sut.call("gpud", ipc::status_request_msg{});
    if (!r || !std::holds_alternative<ipc::status_reply_msg>(*r)) {
        ADD_FAILURE() << "gpud does not answer STATUS_REQUEST";
        return {};
    }
    return nlohmann::json::parse(std::get<ipc::status_reply_msg>(*r).json);
}

}  // namespace

TEST(PipelineParams, PreloadEvictAndTheStatusOfTheSets) {
    pipeline sut({.gpud_backend = "cpu"});
    sut.start("gpud");
    const auto first = params_ok(sut, ipc::params_action::preload, "mul:64");
    EXPECT_FALSE(first.was_loaded);
    const auto second = params_ok(sut, ipc::params_action::preload, "mul:64@5");  // the same set, whatever the seed
    EXPECT_TRUE(second.was_loaded);
    EXPECT_EQ(second.load_ms, 0u);

    auto status = gpud_status(sut);
    EXPECT_TRUE(status["device"].is_null()) << status.dump();
    EXPECT_EQ(status["pinned"]["bytes"], 0);
    EXPECT_EQ(status["pinned"]["limit_bytes"], 0);
    ASSERT_EQ(status["params"].size(), 1u) << status.dump();
    const auto& set = status["params"][0];
    EXPECT_EQ(set["circuit"], "mul:64");
    EXPECT_EQ(set["file"], daemon::params_path(sut.config().gpud.params_dir, "mul:64").string());
    EXPECT_GT(set["bytes"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(set["users"], 0);
    EXPECT_GE(set["load_ms"].get<std::uint64_t>(), first.load_ms);

    const auto evicted = params_ok(sut, ipc::params_action::evict, "mul:64");
    EXPECT_TRUE(evicted.was_loaded);
    EXPECT_EQ(evicted.freed_bytes, set["bytes"].get<std::uint64_t>());
    const auto again = params_ok(sut, ipc::params_action::evict, "mul:64");
    EXPECT_FALSE(again.was_loaded);
    EXPECT_EQ(again.freed_bytes, 0u);
    EXPECT_TRUE(gpud_status(sut)["params"].empty());

    // Loaded again, from the files written by the first preload.
    EXPECT_FALSE(params_ok(sut, ipc::params_action::preload, "mul:64").was_loaded);
}

TEST(PipelineParams, AMissingPorepSetOrAnUnknownCircuitIsABadRequest) {
    pipeline sut({.gpud_backend = "cpu"});
    sut.start("gpud");
    const auto r = params_request(sut, ipc::params_action::preload, "porep:StackedDrg2KiBV1");
    ASSERT_TRUE(std::holds_alternative<ipc::error_reply_msg>(r));
    const auto& e = std::get<ipc::error_reply_msg>(r);
    EXPECT_EQ(e.code, ipc::error_code::bad_request);
    EXPECT_EQ(e.request_type, static_cast<std::uint8_t>(ipc::message_type::params_request));
    EXPECT_NE(e.text.find("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
                          "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params"),
              std::string::npos)
        << e.text;
    EXPECT_NE(e.text.find("porep_StackedDrg2KiBV1.params"), std::string::npos) << e.text;
    for (const auto action : {ipc::params_action::preload, ipc::params_action::evict}) {
        for (const auto* circuit : {"nope:3", "porep:StackedDrg3KiBV1"}) {
            const auto bad = params_request(sut, action, circuit);
            ASSERT_TRUE(std::holds_alternative<ipc::error_reply_msg>(bad)) << circuit;
            EXPECT_EQ(std::get<ipc::error_reply_msg>(bad).code, ipc::error_code::bad_request) << circuit;
        }
    }
    EXPECT_TRUE(sut.answers("gpud"));
    EXPECT_TRUE(gpud_status(sut)["params"].empty());
}

TEST(PipelineParams, StatusIsAnsweredWhileAPreloadLoads) {
    pipeline sut({.gpud_backend = "cpu"});
    sut.start("gpud");
    using clock = std::chrono::steady_clock;
    // Generated here: seconds of setup, as a published set takes minutes to read.
    const std::string circuit = "mul:32768";
    std::optional<ipc::message> reply;
    clock::time_point replied;
    std::thread preloading([&] {
        reply = sut.call("gpud", ipc::params_request_msg{ipc::params_action::preload, circuit},
                         std::chrono::seconds(120));
        replied = clock::now();
    });
    ASSERT_TRUE(pipeline::wait_for([&] { return sut.log_of("gpud").find("generating parameters for " + circuit) !=
                                                std::string::npos; }))
        << sut.log_of("gpud");
    const auto status = gpud_status(sut);
    const auto answered = clock::now();
    EXPECT_TRUE(status["params"].empty()) << status.dump();
    EXPECT_EQ(status["params_loading"], nlohmann::json::array({circuit})) << status.dump();
    preloading.join();
    ASSERT_TRUE(reply && std::holds_alternative<ipc::params_reply_msg>(*reply));
    EXPECT_LT(answered, replied) << "the status waited for the preload";
    const auto after = gpud_status(sut);
    EXPECT_EQ(after["params"].size(), 1u);
    EXPECT_TRUE(after["params_loading"].empty()) << after.dump();
}

TEST(PipelineParams, APartitionCarriesItsParametersLoadTime) {
    pipeline sut({.gpud_backend = "cpu"});
    sut.start_all();
    // Its first partition loads the set (generated here: a test circuit), the next ones find it resident.
    const auto id = sut.submit_ok("mul:2048", 3, 11);
    const auto r = sut.await(id);
    sut.expect_valid(r, "mul:2048", 3, 11);
    EXPECT_GT(r.timings.params_load_ms, 0u) << "no partition reported loading the parameters";
    const auto status = gpud_status(sut);
    ASSERT_EQ(status["params"].size(), 1u) << status.dump();
    EXPECT_EQ(status["params"][0]["circuit"], "mul:2048");
    EXPECT_EQ(status["params"][0]["users"], 0);
}

TEST(PipelineParams, ConfiguredPreloadsLoadAsGpudStartsAndAFailedOneLeavesItServing) {
    // [gpud] preload: a test circuit's set (generated here) and a PoRep set whose files are missing.
    pipeline sut({.gpud_backend = "cpu", .extra_config = "preload = \"mul:2048, porep-2k\""});
    sut.start_all();
    ASSERT_TRUE(pipeline::wait_for([&] { return gpud_status(sut)["params"].size() == 1; }, std::chrono::seconds(60)))
        << sut.log_of("gpud");
    EXPECT_EQ(gpud_status(sut)["params"][0]["circuit"], "mul:2048");
    ASSERT_TRUE(pipeline::wait_for([&] {
        return sut.log_of("gpud").find("[gpud] preload of porep:StackedDrg2KiBV1_1: ") != std::string::npos;
    })) << sut.log_of("gpud");
    EXPECT_NE(sut.log_of("gpud").find("porep_StackedDrg2KiBV1_1.params"), std::string::npos)
        << "the failed preload does not name the files looked for:\n"
        << sut.log_of("gpud");
    EXPECT_TRUE(sut.answers("gpud"));
    // The set was there before the job: no partition of it loaded anything.
    const auto id = sut.submit_ok("mul:2048", 2, 5);
    const auto r = sut.await(id);
    sut.expect_valid(r, "mul:2048", 2, 5);
    EXPECT_EQ(r.timings.params_load_ms, 0u);
    EXPECT_TRUE(params_ok(sut, ipc::params_action::preload, "mul:2048").was_loaded);
}

// The sets of [gpud] preload load one after another, WinningPoSt's first whatever the order given (synthetic here:
// no published file in a test).
TEST(PipelineParams, ConfiguredPreloadsLoadOneAtATimeWinningPostFirst) {
    pipeline sut({.gpud_backend = "cpu", .extra_config = "preload = \"mul:2048, post:StackedDrgWinning2KiBV1\"\n"
                                                         "synthetic_params = true"});
    sut.start("gpud");
    ASSERT_TRUE(pipeline::wait_for([&] { return gpud_status(sut)["params"].size() == 2; }, std::chrono::seconds(60)))
        << sut.log_of("gpud");
    const auto log = sut.log_of("gpud");
    const auto winning = log.find("[gpud] preload post:StackedDrgWinning2KiBV1: loaded in");
    const auto mul = log.find("[gpud] preload mul:2048: loaded in");
    const auto mul_started = log.find("generating parameters for mul:2048");
    ASSERT_NE(winning, std::string::npos) << log;
    ASSERT_NE(mul, std::string::npos) << log;
    ASSERT_NE(mul_started, std::string::npos) << log;
    EXPECT_LT(winning, mul_started) << "the second set began loading before the first was done:\n" << log;
}

// A gpud stopped while a [gpud] preload loads abandons the load and exits at once, cleanly (systemd would kill it
// at TimeoutStopSec, 60 s, while a published 32 GiB set takes minutes): here while it records the matrices of a
// 512 MiB PoRep circuit for synthetic parameters (4.4 M constraints), which it does not finish.
TEST(PipelineParams, AGpudStoppedWhileAPreloadLoadsAbandonsItAndExitsAtOnce) {
    pipeline sut({.gpud_backend = "cpu", .extra_config = "preload = \"porep:StackedDrg512MiBV1\"\n"
                                                         "synthetic_params = true"});
    sut.start("gpud");
    ASSERT_TRUE(pipeline::wait_for(
        [&] { return sut.log_of("gpud").find("recording the R1CS matrices of porep:") != std::string::npos; },
        std::chrono::seconds(60)))
        << sut.log_of("gpud");
    const auto t0 = std::chrono::steady_clock::now();
    sut.stop("gpud");  // SIGTERM; expects exit status 0
    const auto stop_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    const auto log = sut.log_of("gpud");
    EXPECT_EQ(log.find("R1CS matrices of porep:StackedDrg512MiBV1 recorded"), std::string::npos)
        << "the recording ended before the stop: make the circuit larger\n"
        << log;
    EXPECT_NE(log.find("[gpud] preload porep:StackedDrg512MiBV1: "), std::string::npos) << log;
    EXPECT_NE(log.find("abandoned"), std::string::npos) << log;
    EXPECT_EQ(log.find("[gpud] preload of porep:StackedDrg512MiBV1: "), std::string::npos)
        << "the abandoned preload was logged as a failure\n"
        << log;
    EXPECT_LT(stop_ms, 10000) << log;
}
