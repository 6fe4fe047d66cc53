// The shared-memory state of one CUDA lock (one per GPU): a ticket queue (FIFO within a priority class; a waiter
// of a higher class takes the place of the first lower one, the others move up one ticket) whose bookkeeping is guarded
// by a robust, process-shared mutex, plus a futex word that waiters sleep on. The mutex is held for
// microseconds (bookkeeping only); the GPU "turn" it hands out is held for seconds, and is recorded here
// (holder pid, start time, thread) so that a holder that dies can be detected and its turn skipped.
//
//   0     shm_header (magic "CUZKLOCK", slot_count = waiter capacity)
//   128   cuda_lock_data
#pragma once

#include "ipc/shm_header.hpp"

#include <pthread.h>

#include <atomic>
#include <cstdint>

namespace cuzk::ipc {

inline constexpr std::uint32_t cuda_lock_waiter_capacity = 64;

// A queued waiter. |pid| is written last when registering: nonzero marks the entry in use. |ticket| moves up by
// one when a waiter of a higher priority queues ahead of it (cuda_lock::acquire with a priority).
struct cuda_lock_waiter {
    std::uint64_t ticket;
    std::int32_t pid;
    std::uint32_t tid;
    std::uint64_t start_time;  // process start time, see process_identity
    std::uint64_t since_ms;    // CLOCK_REALTIME ms when it queued
    std::int32_t priority;     // the work's priority class: higher first, FIFO within a class
    std::uint32_t reserved;
};

// Cumulative statistics since the segment was created.
struct cuda_lock_stats {
    std::uint64_t acquisitions;
    std::uint64_t total_wait_ns;  // from the call to acquire to the turn
    std::uint64_t total_hold_ns;  // from the turn to release (holders that died are not counted)
    std::uint64_t max_wait_ns;
    std::uint64_t max_hold_ns;
    std::uint64_t owner_death_recoveries;  // turns taken back from a holder process that died holding it
    std::uint64_t dead_waiters_skipped;    // queued turns of waiter processes that died
    std::uint64_t mutex_recoveries;        // EOWNERDEAD on the internal mutex: a process died in bookkeeping
};

struct cuda_lock_data {
    shm_header header;

    // Robust + process-shared. Guards every field below except |turn_epoch|.
    alignas(cache_line_bytes) pthread_mutex_t mutex;

    // Bumped (under |mutex|) whenever the turn may have moved; waiters sleep on it with the mutex released.
    alignas(cache_line_bytes) std::atomic<std::uint32_t> turn_epoch;

    alignas(cache_line_bytes) std::uint64_t next_ticket;  // the ticket the next waiter gets
    std::uint64_t now_serving;                            // the ticket whose turn it is (held or about to be)

    // The turn's holder; valid while |held| != 0. |held| is written after the holder fields and cleared
    // before |now_serving| moves, so a process dying between two writes leaves a state the next locker
    // can repair (see cuda_lock.cpp).
    std::uint32_t held;
    std::int32_t holder_pid;
    std::uint32_t holder_tid;
    std::uint64_t holder_start_time;
    std::uint64_t holder_ticket;
    std::uint64_t held_since_ns;  // CLOCK_MONOTONIC
    std::uint64_t held_since_ms;  // CLOCK_REALTIME

    cuda_lock_stats stats;
    cuda_lock_waiter waiters[cuda_lock_waiter_capacity];
};

}  // namespace cuzk::ipc
