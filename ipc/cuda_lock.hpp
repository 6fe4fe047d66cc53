// The cross-process CUDA lock: one per GPU, in its own small shared-memory segment, taken only around GPU
// kernel work by the workers of one gpud (threads) and of several gpud processes on the same GPU.
//
// - Fair: FIFO by ticket within a priority class; a thread that releases and asks again queues behind those
//   already waiting. A waiter of a higher class queues ahead of every waiter of a lower one (never ahead of the
//   holder: a WinningPoSt waits at most for the kernels already running), so a stream of high-priority work can
//   hold lower work back, which is what its priority asks for.
// - Blocking: a waiter sleeps on a futex between turn changes (no spinning); every |liveness_poll| it wakes
//   to check whether the holder, or the waiter at the head of the queue, has died.
// - Robust: a holder that dies loses its turn (detected by pid and start time; counted as an owner-death
//   recovery); a queued waiter that dies is skipped; a process that dies inside the bookkeeping leaves the
//   internal robust mutex EOWNERDEAD, which the next locker repairs (pthread_mutex_consistent) and logs.
// - Measured: the guard reports wait and hold times; totals, maxima and recoveries are kept in the segment.
#pragma once

#include "ipc/cuda_lock_data.hpp"
#include "ipc/shm_segment.hpp"

#include <chrono>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>

namespace cuzk::ipc {

struct cuda_lock_options {
    segment_location segment;                        // e.g. {.name = cuda_lock::segment_name(0)}
    std::chrono::milliseconds liveness_poll{100};    // longest a dead holder can stall the queue (plus /proc reads)
};

struct lock_timing {
    double wait_ms = 0;
    double hold_ms = 0;
    std::uint64_t acquired_at_ms = 0;  // CLOCK_REALTIME: GPU_START may be logged with it
    std::uint64_t released_at_ms = 0;  // CLOCK_REALTIME: GPU_END
    bool lost = false;  // the turn had been taken away (this process was judged dead); nothing was released
};

struct lock_state {
    bool held = false;
    pid_t holder_pid = 0;
    std::uint32_t holder_tid = 0;
    std::uint64_t held_since_ms = 0;
    std::uint32_t waiting = 0;  // queued waiters (including any that died and are not skipped yet)
    std::uint64_t now_serving = 0;
    std::uint64_t next_ticket = 0;
};

class cuda_lock_guard {
public:
    cuda_lock_guard() = default;
    cuda_lock_guard(cuda_lock_guard&& other) noexcept { *this = std::move(other); }
    cuda_lock_guard& operator=(cuda_lock_guard&& other) noexcept;
    ~cuda_lock_guard() { release(); }

    bool owns_lock() const noexcept { return data_ != nullptr; }
    std::uint64_t ticket() const noexcept { return ticket_; }
    double wait_ms() const noexcept { return static_cast<double>(wait_ns_) / 1e6; }
    std::uint64_t acquired_at_ms() const noexcept { return acquired_at_ms_; }

    // Hands the turn to the next waiter. Afterwards owns_lock() is false; a second call returns {}.
    lock_timing release() noexcept;

private:
    friend class cuda_lock;
    cuda_lock_data* data_ = nullptr;  // the mapping outlives the guard (see cuda_lock)
    std::string name_;
    std::uint64_t ticket_ = 0;
    std::uint64_t wait_ns_ = 0;
    std::uint64_t acquired_ns_ = 0;
    std::uint64_t acquired_at_ms_ = 0;
};

class cuda_lock {
public:
    static constexpr std::uint64_t magic = make_magic("CUZKLOCK");
    static constexpr std::uint32_t layout_version = 4;  // 3: shm_header names its service; 4: waiter priorities

    // "cuzk-cuda-lock-gpu<index>": the default segment name of a GPU's lock.
    static std::string segment_name(int gpu_index);

    // Opens the GPU's lock, creating it when it does not exist yet. Throws shm_error.
    static cuda_lock open_or_create(const cuda_lock_options& options);
    static bool remove(const segment_location& where);

    cuda_lock(cuda_lock&&) noexcept = default;
    cuda_lock& operator=(cuda_lock&&) noexcept = default;

    // Blocks until this caller's turn. The cuda_lock (its mapping) must outlive the guard; moving the
    // cuda_lock is fine. Throws std::runtime_error when the waiter table is full or the mutex is unusable.
    // |priority|: the work's class (the ring's: ipc::priority_class_of; 0 for NORMAL), see the queue above.
    [[nodiscard]] cuda_lock_guard acquire(std::int32_t priority = 0);
    // As acquire, but gives up after |timeout| (std::nullopt; the queue position is abandoned and skipped).
    [[nodiscard]] std::optional<cuda_lock_guard> try_acquire_for(std::chrono::nanoseconds timeout,
                                                                 std::int32_t priority = 0);
    // As acquire, keeping its place in the queue, but gives up (std::nullopt, the ticket abandoned) once
    // |give_up| returns true: asked before each wait and at least every liveness poll while waiting, under the
    // lock's bookkeeping mutex, so it must be quick and must not block (gpud: its job was cancelled, or it stops).
    [[nodiscard]] std::optional<cuda_lock_guard> acquire_unless(const std::function<bool()>& give_up,
                                                                std::int32_t priority = 0);

    cuda_lock_stats statistics() const;
    lock_state state() const;
    const segment_location& location() const noexcept { return segment_.location(); }
    // The service the lock belongs to, and its takeover, as for the ring (daemon/service_segment.hpp).
    std::string service() const { return service_of(data_->header); }
    void take_over(std::string_view service) noexcept { set_service(data_->header, service); }
    // The shared state itself, for diagnostics and tests.
    cuda_lock_data& shared_data() const noexcept { return *data_; }

private:
    cuda_lock(shm_segment segment, std::chrono::milliseconds liveness_poll);
    std::optional<cuda_lock_guard> acquire_until(std::optional<std::chrono::steady_clock::time_point> deadline,
                                                 const std::function<bool()>* give_up, std::int32_t priority);

    shm_segment segment_;
    cuda_lock_data* data_ = nullptr;
    std::chrono::milliseconds liveness_poll_;
};

}  // namespace cuzk::ipc
