// The CUDA lock across processes in the pipeline: a gpud killed while it holds the lock does not block its
// restarted successor, and a process that died holding the lock does not block gpud's workers.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include "support/pipeline.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

TEST(PipelineLock, GpudKilledHoldingTheLockDoesNotBlockItsSuccessor) {
    pipeline sut({.slots = 3});
    sut.start_all();
    const std::string circuit = "mul:4096";
    std::vector<std::uint64_t> ids{sut.submit_ok(circuit, 3, 1), sut.submit_ok(circuit, 3, 50)};
    auto lock = ipc::cuda_lock::open_or_create(cuzk::test::lock_named(sut.config().gpud.lock_name));
    const pid_t gpud = sut.pid("gpud");
    // Kill it inside the kernels: the lock held by gpud itself.
    // A tight poll: the kernels of one partition take tens of milliseconds here.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool caught = false;
    while (!caught && std::chrono::steady_clock::now() < deadline) {
        const auto s = lock.state();
        if (s.held && s.holder_pid == gpud) {
            sut.kill9("gpud");
            caught = true;
        } else {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }
    ASSERT_TRUE(caught) << "gpud never held the lock: " << sut.status_text();
    sut.start("gpud");
    for (std::size_t j = 0; j < ids.size(); ++j) sut.expect_valid(sut.await(ids[j], std::chrono::seconds(90)), circuit, 3, j == 0 ? 1 : 50);
    EXPECT_GE(lock.statistics().owner_death_recoveries, 1u);
}

TEST(PipelineLock, AProcessDeadWithTheLockDoesNotBlockTheWorkers) {
    pipeline sut;
    // Another process (a second gpud on this GPU, say) takes the lock and dies holding it.
    const pid_t holder = ::fork();
    ASSERT_GE(holder, 0);
    if (holder == 0) {
        auto lock = ipc::cuda_lock::open_or_create(cuzk::test::lock_named(sut.config().gpud.lock_name));
        auto guard = lock.acquire();
        ::pause();
        ::_exit(0);
    }
    auto lock = ipc::cuda_lock::open_or_create(cuzk::test::lock_named(sut.config().gpud.lock_name));
    ASSERT_TRUE(pipeline::wait_for([&] { return lock.state().held && lock.state().holder_pid == holder; }));
    ::kill(holder, SIGKILL);
    ::waitpid(holder, nullptr, 0);
    sut.start_all();
    const auto id = sut.submit_ok("mul:256", 3, 9);
    sut.expect_valid(sut.await(id, std::chrono::seconds(60)), "mul:256", 3, 9);
    EXPECT_GE(lock.statistics().owner_death_recoveries, 1u);
}
