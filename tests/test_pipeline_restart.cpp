// kill -9 of each daemon in turn in the middle of a run, then a restart: every job completes with valid
// proofs, none is lost and none is duplicated (the assembler's registry holds exactly the jobs submitted).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/pipeline.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

const std::string circuit = "mul:2048";
constexpr std::uint32_t partitions = 3;

// Partitions proved so far over all jobs, from assemblerd's status.
std::uint32_t proved(const pipeline& sut) {
    try {
        const auto j = nlohmann::json::parse(sut.status_text());
        std::uint32_t n = 0;
        for (const auto& job : j["jobs"]) n += job["partitions_done"].get<std::uint32_t>();
        return n;
    } catch (const std::exception&) {
        return 0;
    }
}

void kill_mid_run_and_restart(const std::string& victim) {
    pipeline sut({.slots = 3, .partition_timeout_s = 8});
    sut.start_all();
    std::vector<std::uint64_t> ids;
    for (std::uint64_t j = 0; j < 3; ++j) ids.push_back(sut.submit_ok(circuit, partitions, 10 * j + 1));
    // Mid-run: some partitions proved, most not.
    ASSERT_TRUE(pipeline::wait_for([&] { return proved(sut) >= 1; }, std::chrono::seconds(60))) << sut.status_text();
    ASSERT_LT(proved(sut), 3 * partitions) << "the run ended before the kill: use a larger circuit";
    sut.kill9(victim);
    sut.start(victim);
    for (std::size_t j = 0; j < ids.size(); ++j) sut.expect_valid(sut.await(ids[j], std::chrono::seconds(90)), circuit, partitions, 10 * j + 1);
    const auto status = nlohmann::json::parse(sut.status_text());
    ASSERT_EQ(status["jobs"].size(), 3u) << status.dump();
    for (const auto& job : status["jobs"]) {
        EXPECT_EQ(job["state"], "done");
        EXPECT_EQ(job["partitions_done"], partitions);
    }
    // Nothing is left behind in the ring.
    EXPECT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::free) == 3; }, std::chrono::seconds(10)));
}

}  // namespace

TEST(PipelineRestart, KillSynthdMidRun) { kill_mid_run_and_restart("synthd"); }
TEST(PipelineRestart, KillGpudMidRun) { kill_mid_run_and_restart("gpud"); }
TEST(PipelineRestart, KillAssemblerdMidRun) { kill_mid_run_and_restart("assemblerd"); }
