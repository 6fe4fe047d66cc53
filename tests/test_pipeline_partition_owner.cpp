// One owner for each partition at a time, and nothing proved for nobody: a cancelled job's partitions that a
// gpud worker already holds stop at the next step boundary, before the CUDA lock where possible; a gpud asked
// to stop hands the partitions it holds back READY at a step boundary instead of being killed mid-wait; and a
// partition whose witness already lies in the ring is not synthesized (and proved) a second time when
// assemblerd dispatches it again after a restart.
// The test holds the GPU's CUDA lock itself, so gpud's workers take partitions, prepare them and then wait.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/pipeline.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

const std::string circuit = "mul:2048";

nlohmann::json status_of(const pipeline& sut, const std::string& stage) {
    auto r = sut.call(stage, ipc::status_request_msg{});
    if (!r || !std::holds_alternative<ipc::status_reply_msg>(*r)) return {};
    return nlohmann::json::parse(std::get<ipc::status_reply_msg>(*r).json);
}

std::size_t workers_in(const pipeline& sut, std::string_view phase) {
    const auto j = status_of(sut, "gpud");
    std::size_t n = 0;
    if (j.contains("workers"))
        for (const auto& w : j["workers"]) n += w["phase"] == phase ? 1 : 0;
    return n;
}

// Occurrences of |needle| in the log of |stage|.
std::size_t count_in_log(const pipeline& sut, const std::string& stage, const std::string& needle) {
    const auto log = sut.log_of(stage);
    std::size_t n = 0;
    for (auto at = log.find(needle); at != std::string::npos; at = log.find(needle, at + needle.size())) ++n;
    return n;
}

std::string kernels_of(std::uint64_t job) { return fmt::format("GPU_START,{},", job); }

ipc::cuda_lock the_gpus_lock(const pipeline& sut) {
    ipc::cuda_lock_options o;
    o.segment.name = sut.lock_name_of(0);
    return ipc::cuda_lock::open_or_create(o);
}

}  // namespace

TEST(PipelinePartitionOwner, CancelStopsPartitionsHeldAtTheLockWithoutKernels) {
    pipeline sut({.slots = 4, .synth_threads = 2, .gpud_workers = 2, .partition_timeout_s = 120});
    sut.start_all();
    auto lock = the_gpus_lock(sut);
    auto held = lock.acquire();
    const auto id = sut.submit_ok(circuit, 2, 5);
    ASSERT_TRUE(pipeline::wait_for([&] { return workers_in(sut, "lock_wait") == 2; }, std::chrono::seconds(60)))
        << status_of(sut, "gpud").dump();

    auto r = sut.call("assemblerd", ipc::cancel_msg{id});
    ASSERT_TRUE(r && std::holds_alternative<ipc::await_reply_msg>(*r));
    // Both workers leave their partitions while the lock is still held elsewhere: no kernels, slots freed.
    ASSERT_TRUE(pipeline::wait_for([&] { return workers_in(sut, "idle") == 2; })) << status_of(sut, "gpud").dump();
    EXPECT_EQ(count_in_log(sut, "gpud", "freed unproved (while waiting for the CUDA lock)"), 2u) << sut.log_of("gpud");
    EXPECT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::free) == 4; }));
    (void)held.release();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(count_in_log(sut, "gpud", kernels_of(id)), 0u) << sut.log_of("gpud");
    EXPECT_EQ(lock.statistics().acquisitions, 1u) << "only this test took the lock";

    // The gpud keeps serving.
    const auto next = sut.submit_ok(circuit, 2, 6);
    sut.expect_valid(sut.await(next), circuit, 2, 6);
}

TEST(PipelinePartitionOwner, StoppingGpudHandsItsPartitionsBackAndTheNextOneProvesThemOnce) {
    pipeline sut({.slots = 4, .synth_threads = 2, .gpud_workers = 2, .partition_timeout_s = 120});
    sut.start_all();
    auto lock = the_gpus_lock(sut);
    auto held = lock.acquire();
    const auto id = sut.submit_ok(circuit, 2, 7);
    ASSERT_TRUE(pipeline::wait_for([&] { return workers_in(sut, "lock_wait") == 2; }, std::chrono::seconds(60)))
        << status_of(sut, "gpud").dump();

    // SIGTERM while both workers wait for a lock that is not coming: gpud exits 0 at once, its partitions READY.
    const auto t0 = std::chrono::steady_clock::now();
    sut.stop("gpud");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    EXPECT_EQ(count_in_log(sut, "gpud", "handed back READY while waiting for the CUDA lock"), 2u) << sut.log_of("gpud");
    EXPECT_EQ(sut.slots_in(ipc::slot_state::ready), 2u);
    EXPECT_EQ(sut.slots_in(ipc::slot_state::proving), 0u);
    (void)held.release();

    sut.start("gpud");
    sut.expect_valid(sut.await(id), circuit, 2, 7);
    // Each partition went under the lock once, and synthd synthesized each once.
    EXPECT_EQ(count_in_log(sut, "gpud", kernels_of(id)), 2u) << sut.log_of("gpud");
    EXPECT_EQ(count_in_log(sut, "synthd", fmt::format("SYNTH_START,{},", id)), 2u) << sut.log_of("synthd");
}

TEST(PipelinePartitionOwner, FullRestartProvesAnInFlightPartitionOnce) {
    pipeline sut({.slots = 4, .synth_threads = 2, .gpud_workers = 2, .partition_timeout_s = 120});
    sut.start_all();
    auto lock = the_gpus_lock(sut);
    auto held = lock.acquire();
    const auto id = sut.submit_ok(circuit, 3, 9);
    // Two partitions PROVING (their workers at the lock), the third READY behind them.
    ASSERT_TRUE(pipeline::wait_for([&] {
        return workers_in(sut, "lock_wait") == 2 && sut.slots_in(ipc::slot_state::ready) == 1;
    }, std::chrono::seconds(60))) << status_of(sut, "gpud").dump();

    for (const auto* stage : {"gpud", "synthd", "assemblerd"}) sut.kill9(stage);
    (void)held.release();
    // assemblerd dispatches the job's three partitions again; their witnesses are in the ring already.
    sut.start("assemblerd");
    sut.start("synthd");
    sut.start("gpud");
    sut.expect_valid(sut.await(id, std::chrono::seconds(90)), circuit, 3, 9);
    EXPECT_EQ(count_in_log(sut, "synthd", fmt::format("SYNTH_START,{},", id)), 3u) << sut.log_of("synthd");
    EXPECT_EQ(count_in_log(sut, "gpud", kernels_of(id)), 3u) << sut.log_of("gpud");
    EXPECT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::free) == 4; }));
}
