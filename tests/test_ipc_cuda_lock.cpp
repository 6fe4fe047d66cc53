// The cross-process CUDA lock: FIFO hand-off between threads and between processes, strict alternation
// under contention, blocking (not spinning) waits, recovery from a holder or a waiter killed with SIGKILL
// and from a process that died inside the lock's bookkeeping, and plausible wait/hold statistics.
#include <gtest/gtest.h>

#include "ipc/cuda_lock.hpp"
#include "ipc/shm_error.hpp"

#include <fmt/format.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

using namespace cuzk::ipc;
using namespace std::chrono_literals;

namespace {

std::string unique_name() {
    static std::atomic<int> counter{0};
    return fmt::format("cuzk-test-lock-{}-{}", getpid(), counter++);
}

// An order book in anonymous shared memory, written by whoever holds the lock (so no extra locking).
struct shared_log {
    std::atomic<int> count;
    int who[512];
};

shared_log* make_shared_log() {
    void* p = ::mmap(nullptr, sizeof(shared_log), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap");
    return new (p) shared_log{};
}

void append(shared_log& log, int who) { log.who[log.count.fetch_add(1)] = who; }

std::vector<int> entries(const shared_log& log) { return {log.who, log.who + log.count.load()}; }

template <typename Predicate>
bool eventually(Predicate predicate, std::chrono::milliseconds limit = 5s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!predicate()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// Fraction of hand-offs that went to the other party, over the part of |sequence| after both appear.
double alternation(const std::vector<int>& sequence) {
    std::size_t first_both = 1;
    while (first_both < sequence.size() && sequence[first_both] == sequence[0]) ++first_both;
    std::size_t switches = 0, pairs = 0;
    for (std::size_t i = first_both; i + 1 < sequence.size(); ++i, ++pairs) switches += sequence[i] != sequence[i + 1];
    return pairs == 0 ? 0.0 : static_cast<double>(switches) / static_cast<double>(pairs);
}

class CudaLock : public ::testing::Test {
protected:
    void SetUp() override {
        options.segment.name = unique_name();
        options.liveness_poll = 50ms;
    }
    void TearDown() override {
        for (pid_t child : children) {
            ::kill(child, SIGKILL);
            ::waitpid(child, nullptr, 0);
        }
        cuda_lock::remove(options.segment);
    }

    // A child that acquires the lock, appends |who| to |log| while holding it |rounds| times, then exits 0.
    pid_t spawn_worker(shared_log* log, int who, int rounds, std::chrono::milliseconds hold) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            auto lock = cuda_lock::open_or_create(options);
            for (int i = 0; i < rounds; ++i) {
                auto guard = lock.acquire();
                append(*log, who);
                std::this_thread::sleep_for(hold);
            }
            ::_exit(0);
        }
        children.push_back(pid);
        return pid;
    }

    bool reap(pid_t pid) {
        int status = 0;
        const bool ok = ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        std::erase(children, pid);
        return ok;
    }

    cuda_lock_options options;
    std::vector<pid_t> children;
};

}  // namespace

TEST_F(CudaLock, SegmentNameIsPerGpu) {
    EXPECT_EQ(cuda_lock::segment_name(0), "cuzk-cuda-lock-gpu0");
    EXPECT_EQ(cuda_lock::segment_name(7), "cuzk-cuda-lock-gpu7");
}

TEST_F(CudaLock, AcquireAndReleaseReportWaitAndHoldTimes) {
    auto sut = cuda_lock::open_or_create(options);
    auto guard = sut.acquire();
    EXPECT_TRUE(guard.owns_lock());
    EXPECT_LT(guard.wait_ms(), 1000.0);
    EXPECT_GT(guard.acquired_at_ms(), 1'600'000'000'000u);
    const auto state = sut.state();
    EXPECT_TRUE(state.held);
    EXPECT_EQ(state.holder_pid, getpid());
    std::this_thread::sleep_for(20ms);
    const auto timing = guard.release();
    EXPECT_FALSE(guard.owns_lock());
    EXPECT_FALSE(timing.lost);
    EXPECT_GE(timing.hold_ms, 19.0);
    EXPECT_LT(timing.hold_ms, 5000.0);
    EXPECT_GE(timing.released_at_ms, timing.acquired_at_ms + 19);
    EXPECT_FALSE(sut.state().held);
    EXPECT_EQ(guard.release().hold_ms, 0.0);  // a second release does nothing

    const auto stats = sut.statistics();
    EXPECT_EQ(stats.acquisitions, 1u);
    EXPECT_GE(stats.total_hold_ns, 19'000'000u);
    EXPECT_EQ(stats.max_hold_ns, stats.total_hold_ns);
    EXPECT_EQ(stats.owner_death_recoveries, 0u);
}

TEST_F(CudaLock, SecondOpenSharesTheLock) {
    auto first = cuda_lock::open_or_create(options);
    auto second = cuda_lock::open_or_create(options);
    auto guard = first.acquire();
    EXPECT_TRUE(second.state().held);
    EXPECT_FALSE(second.try_acquire_for(20ms));
}

TEST_F(CudaLock, ThreadWaitersAreServedInArrivalOrder) {
    auto sut = cuda_lock::open_or_create(options);
    auto holder = sut.acquire();
    std::vector<int> order;
    std::vector<double> waits(4);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
        threads.emplace_back([&, i] {
            auto guard = sut.acquire();
            order.push_back(i);  // under the lock
            waits[i] = guard.wait_ms();
        });
        ASSERT_TRUE(eventually([&] { return sut.state().waiting == static_cast<std::uint32_t>(i + 1); }));
    }
    std::this_thread::sleep_for(30ms);
    (void)holder.release();
    for (auto& t : threads) t.join();
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
    for (double w : waits) EXPECT_GE(w, 25.0);
}

// Waiters of a higher priority class go ahead of every waiter of a lower one, FIFO within a class; the holder
// keeps its turn; a waiter that gave up (a hole in the queue) stays skipped.
TEST_F(CudaLock, HigherPriorityWaitersGoFirstAndEachClassStaysInArrivalOrder) {
    auto sut = cuda_lock::open_or_create(options);
    auto holder = sut.acquire();
    const std::vector<std::pair<char, int>> arrivals = {{'a', 0}, {'b', 0}, {'t', 0}, {'c', 2},
                                                        {'d', 1}, {'e', 2}, {'f', 0}};
    std::string order;
    std::vector<std::thread> threads;
    std::uint32_t queued = 0;
    for (const auto& [who, priority] : arrivals) {
        if (who == 't') {  // queues, then gives up before its turn: its ticket is a hole the others move around
            EXPECT_FALSE(sut.try_acquire_for(20ms, priority));
            continue;
        }
        threads.emplace_back([&, who = who, priority = priority] {
            auto guard = sut.acquire(priority);
            order.push_back(who);  // under the lock
        });
        ++queued;
        ASSERT_TRUE(eventually([&] { return sut.state().waiting == queued; }));
    }
    EXPECT_TRUE(sut.state().held) << "queuing ahead never takes the holder's turn";
    (void)holder.release();
    for (auto& t : threads) t.join();
    EXPECT_EQ(order, "cedabf");
}

TEST_F(CudaLock, TwoThreadsUnderContentionAlternate) {
    auto sut = cuda_lock::open_or_create(options);
    std::vector<int> sequence;
    auto work = [&](int who) {
        for (int i = 0; i < 40; ++i) {
            auto guard = sut.acquire();
            sequence.push_back(who);
            std::this_thread::sleep_for(2ms);
        }
    };
    std::thread a(work, 0), b(work, 1);
    a.join();
    b.join();
    ASSERT_EQ(sequence.size(), 80u);
    // FIFO: the releasing thread queues behind the one already waiting. A scheduler hiccup longer than the
    // 2 ms hold can let one thread go twice; a non-FIFO lock lets it go many times in a row.
    EXPECT_GE(alternation(sequence), 0.9) << testing::PrintToString(sequence);
}

TEST_F(CudaLock, WaitingBlocksInsteadOfSpinning) {
    auto sut = cuda_lock::open_or_create(options);
    auto holder = sut.acquire();
    double cpu_ms = -1;
    double waited_ms = 0;
    std::thread waiter([&] {
        const double before = thread_cpu_ms();
        auto guard = sut.acquire();
        cpu_ms = thread_cpu_ms() - before;
        waited_ms = guard.wait_ms();
    });
    std::this_thread::sleep_for(500ms);
    (void)holder.release();
    waiter.join();
    EXPECT_GE(waited_ms, 450.0);
    EXPECT_LT(cpu_ms, 50.0) << "a waiter burnt CPU while the lock was held for 500 ms";
}

TEST_F(CudaLock, ProcessWaitersAreServedInArrivalOrder) {
    auto sut = cuda_lock::open_or_create(options);
    auto* log = make_shared_log();
    auto holder = sut.acquire();
    std::vector<pid_t> pids;
    for (int i = 0; i < 3; ++i) {
        pids.push_back(spawn_worker(log, i, 1, 5ms));
        ASSERT_TRUE(eventually([&] { return sut.state().waiting == static_cast<std::uint32_t>(i + 1); }));
    }
    (void)holder.release();
    for (pid_t pid : pids) EXPECT_TRUE(reap(pid));
    EXPECT_EQ(entries(*log), (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(sut.statistics().acquisitions, 4u);
    ::munmap(log, sizeof(shared_log));
}

TEST_F(CudaLock, TwoProcessesUnderContentionAlternate) {
    auto sut = cuda_lock::open_or_create(options);
    auto* log = make_shared_log();
    const pid_t a = spawn_worker(log, 0, 30, 3ms);
    const pid_t b = spawn_worker(log, 1, 30, 3ms);
    EXPECT_TRUE(reap(a));
    EXPECT_TRUE(reap(b));
    const auto sequence = entries(*log);
    ASSERT_EQ(sequence.size(), 60u);
    EXPECT_GE(alternation(sequence), 0.9) << testing::PrintToString(sequence);

    const auto stats = sut.statistics();
    EXPECT_EQ(stats.acquisitions, 60u);
    // Each of 60 holds lasted >= 3 ms; each waiter waited about one hold of the other.
    EXPECT_GE(stats.total_hold_ns, 60u * 3'000'000u);
    EXPECT_GE(stats.max_hold_ns, 3'000'000u);
    EXPECT_LT(stats.max_hold_ns, 2'000'000'000u);
    EXPECT_GT(stats.total_wait_ns, 20u * 2'000'000u);
    EXPECT_LE(stats.max_wait_ns, stats.total_wait_ns);
    ::munmap(log, sizeof(shared_log));
}

TEST_F(CudaLock, HolderKilledWhileHoldingDoesNotBlockTheOthers) {
    auto sut = cuda_lock::open_or_create(options);
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    if (child == 0) {
        auto lock = cuda_lock::open_or_create(options);
        auto guard = lock.acquire();
        (void)!::write(ready[1], "x", 1);
        for (;;) ::pause();  // "running kernels" until killed
    }
    children.push_back(child);
    char byte;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
    EXPECT_EQ(sut.state().holder_pid, child);

    std::atomic<bool> acquired{false};
    std::thread waiter([&] {  // bounded, so that a regression fails instead of hanging
        auto guard = sut.try_acquire_for(10s);
        acquired = guard.has_value();
    });
    ASSERT_TRUE(eventually([&] { return sut.state().waiting == 1; }));
    std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(acquired) << "the lock was taken while its holder lived";

    const auto killed_at = std::chrono::steady_clock::now();
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    std::erase(children, child);
    waiter.join();
    EXPECT_TRUE(acquired);
    EXPECT_LT(std::chrono::steady_clock::now() - killed_at, 2s);
    const auto stats = sut.statistics();
    EXPECT_EQ(stats.owner_death_recoveries, 1u);
    EXPECT_FALSE(sut.state().held);
    // The lock works on.
    auto guard = sut.try_acquire_for(5s);
    ASSERT_TRUE(guard);
    EXPECT_EQ(sut.state().holder_pid, getpid());
    ::close(ready[0]);
    ::close(ready[1]);
}

TEST_F(CudaLock, HolderKilledWithNobodyWaitingIsRecoveredByTheNextAcquire) {
    auto sut = cuda_lock::open_or_create(options);
    const pid_t child = ::fork();
    if (child == 0) {
        auto lock = cuda_lock::open_or_create(options);
        auto guard = lock.acquire();
        ::kill(getpid(), SIGKILL);
    }
    ::waitpid(child, nullptr, 0);
    EXPECT_TRUE(sut.state().held);
    auto guard = sut.try_acquire_for(2s);
    ASSERT_TRUE(guard);
    EXPECT_EQ(sut.statistics().owner_death_recoveries, 1u);
}

TEST_F(CudaLock, HolderWithOurPidButAnotherStartTimeIsADeadPredecessor) {
    auto sut = cuda_lock::open_or_create(options);
    auto stale = sut.acquire();
    sut.shared_data().holder_start_time -= 1;  // as if a previous process with our pid took it and died
    auto guard = sut.try_acquire_for(2s);
    ASSERT_TRUE(guard);
    EXPECT_EQ(sut.statistics().owner_death_recoveries, 1u);
    EXPECT_TRUE(stale.release().lost);  // the stale turn cannot release the new holder's
    EXPECT_TRUE(sut.state().held);
}

TEST_F(CudaLock, WaiterKilledWhileQueuedIsSkipped) {
    auto sut = cuda_lock::open_or_create(options);
    auto* log = make_shared_log();
    auto holder = sut.acquire();
    const pid_t doomed = spawn_worker(log, 9, 1, 1ms);
    ASSERT_TRUE(eventually([&] { return sut.state().waiting == 1; }));
    std::atomic<bool> acquired{false};
    std::thread behind([&] {
        auto guard = sut.try_acquire_for(10s);
        acquired = guard.has_value();
    });
    ASSERT_TRUE(eventually([&] { return sut.state().waiting == 2; }));
    ::kill(doomed, SIGKILL);
    ::waitpid(doomed, nullptr, 0);
    std::erase(children, doomed);
    (void)holder.release();
    behind.join();
    EXPECT_TRUE(acquired);
    EXPECT_TRUE(entries(*log).empty());
    EXPECT_EQ(sut.statistics().dead_waiters_skipped, 1u);
    ::munmap(log, sizeof(shared_log));
}

TEST_F(CudaLock, ProcessDyingInsideTheBookkeepingIsRecovered) {
    auto sut = cuda_lock::open_or_create(options);
    const pid_t child = ::fork();
    if (child == 0) {
        auto lock = cuda_lock::open_or_create(options);
        ::pthread_mutex_lock(&lock.shared_data().mutex);  // as if killed in the middle of acquire/release
        ::_exit(0);
    }
    ::waitpid(child, nullptr, 0);
    auto guard = sut.try_acquire_for(2s);
    ASSERT_TRUE(guard);
    (void)guard->release();
    const auto stats = sut.statistics();
    EXPECT_EQ(stats.mutex_recoveries, 1u);
    EXPECT_EQ(stats.acquisitions, 1u);
    // Consistent again: further use needs no recovery.
    auto again = sut.acquire();
    EXPECT_EQ(sut.statistics().mutex_recoveries, 1u);
}

TEST_F(CudaLock, TimedOutWaiterLeavesTheQueueWithoutStallingIt) {
    auto sut = cuda_lock::open_or_create(options);
    options.liveness_poll = 10s;  // a stall would now be visible: nobody polls
    auto slow = cuda_lock::open_or_create(options);
    auto holder = sut.acquire();
    const auto started = std::chrono::steady_clock::now();
    EXPECT_FALSE(slow.try_acquire_for(50ms));
    EXPECT_GE(std::chrono::steady_clock::now() - started, 50ms);

    std::atomic<bool> acquired{false};
    std::chrono::steady_clock::time_point got;
    std::thread behind([&] {  // queued after the abandoned ticket
        auto guard = slow.try_acquire_for(20s);
        got = std::chrono::steady_clock::now();
        acquired = guard.has_value();
    });
    ASSERT_TRUE(eventually([&] { return sut.state().waiting == 1; }));
    const auto released = std::chrono::steady_clock::now();
    (void)holder.release();
    behind.join();
    EXPECT_TRUE(acquired);
    EXPECT_LT(got - released, 1s) << "the abandoned ticket stalled the queue";
}

TEST_F(CudaLock, StatisticsAccumulateOverThreadsAndReflectContention) {
    auto sut = cuda_lock::open_or_create(options);
    std::vector<std::thread> threads;
    std::mutex record;
    double hold_sum_ms = 0, wait_sum_ms = 0;
    for (int t = 0; t < 3; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 10; ++i) {
                auto guard = sut.acquire();
                std::this_thread::sleep_for(3ms);
                const auto timing = guard.release();
                std::lock_guard g(record);
                hold_sum_ms += timing.hold_ms;
                wait_sum_ms += timing.wait_ms;
            }
        });
    }
    for (auto& t : threads) t.join();
    const auto stats = sut.statistics();
    EXPECT_EQ(stats.acquisitions, 30u);
    EXPECT_NEAR(static_cast<double>(stats.total_hold_ns) / 1e6, hold_sum_ms, 1.0);
    EXPECT_NEAR(static_cast<double>(stats.total_wait_ns) / 1e6, wait_sum_ms, 1.0);
    EXPECT_GE(hold_sum_ms, 30 * 3.0);
    // Three threads contend: most acquisitions wait about two holds.
    EXPECT_GT(wait_sum_ms, 20 * 3.0);
    EXPECT_GE(stats.max_wait_ns, 3'000'000u);
}
