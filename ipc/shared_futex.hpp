// Blocking wait on a 32-bit word in shared memory, across processes (a futex without FUTEX_PRIVATE_FLAG,
// keyed by the mapping rather than the address space). std::atomic::wait cannot serve here: libstdc++
// uses private futexes. Nothing is left behind by a process that dies while waiting, which is why the
// CUDA lock and the ring block on these rather than on process-shared pthread condition variables
// (glibc 2.36: a waiter killed inside pthread_cond_wait makes later broadcasts block forever).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace cuzk::ipc {

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
              std::atomic<std::uint32_t>::is_always_lock_free);

// Sleeps while |word| == |expected|, at most |timeout| (CLOCK_MONOTONIC). Returns early on a wake, a signal,
// or when the word already differs; callers re-check their condition in a loop.
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::chrono::nanoseconds timeout) noexcept;

// Wakes every process and thread sleeping on |word|. Cost: one system call (~1 us), even with no sleeper.
void futex_wake_all(std::atomic<std::uint32_t>& word) noexcept;

}  // namespace cuzk::ipc
