#include "ipc/cuda_lock.hpp"

#include "ipc/clock.hpp"
#include "ipc/process_identity.hpp"
#include "ipc/shared_futex.hpp"
#include "ipc/shm_error.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>

namespace cuzk::ipc {
namespace {

// The bookkeeping writes are ordered against a death by SIGKILL between two of them: the CPU retires a
// thread's stores in program order, so only the compiler has to be kept from reordering them.
inline void keep_order() noexcept { std::atomic_signal_fence(std::memory_order_seq_cst); }

// Holds the internal mutex for one piece of bookkeeping. On EOWNERDEAD (a process died holding it, i.e.
// in the middle of bookkeeping) it drops that process's queue entries, marks the mutex consistent and
// counts the recovery; the rest is repaired by advance_turn, which every locker runs.
class bookkeeping_lock {
public:
    bookkeeping_lock(cuda_lock_data& data, const std::string& name) : data_(data) {
        const int rc = ::pthread_mutex_lock(&data_.mutex);
        if (rc == EOWNERDEAD) {
            recover(name);
        } else if (rc != 0) {
            throw std::runtime_error(fmt::format("CUDA lock '{}': internal mutex unusable: {} (errno {}); remove the "
                                                 "segment once no process uses it",
                                                 name, std::strerror(rc), rc));
        }
    }
    ~bookkeeping_lock() { ::pthread_mutex_unlock(&data_.mutex); }
    bookkeeping_lock(const bookkeeping_lock&) = delete;
    bookkeeping_lock& operator=(const bookkeeping_lock&) = delete;

    // Releases the mutex while sleeping until the turn may have changed (or |timeout| passes).
    void wait_for_turn_change(std::chrono::nanoseconds timeout, const std::string& name) {
        // Acquire: pairs with the release increments below; read under the mutex, so any later change of
        // the turn (made under the mutex) also changes the epoch and the futex wait returns at once.
        const auto epoch = data_.turn_epoch.load(std::memory_order_acquire);
        ::pthread_mutex_unlock(&data_.mutex);
        futex_wait(data_.turn_epoch, epoch, timeout);
        const int rc = ::pthread_mutex_lock(&data_.mutex);
        if (rc == EOWNERDEAD) {
            recover(name);
        } else if (rc != 0) {
            throw std::runtime_error(fmt::format("CUDA lock '{}': internal mutex unusable: {} (errno {})", name,
                                                 std::strerror(rc), rc));
        }
    }

private:
    void recover(const std::string& name) {
        std::uint32_t dropped = 0;
        for (auto& waiter : data_.waiters) {
            if (waiter.pid != 0 && !process_alive(waiter.pid, waiter.start_time)) {
                waiter.pid = 0;
                ++dropped;
            }
        }
        ++data_.stats.mutex_recoveries;
        ::pthread_mutex_consistent(&data_.mutex);
        spdlog::warn("CUDA lock '{}': a process died inside the lock's bookkeeping; state repaired ({} dead queue "
                     "entries dropped)",
                     name, dropped);
    }

    cuda_lock_data& data_;
};

// Our own process (any thread) is alive; the same pid with another start time is a dead predecessor.
bool alive(pid_t pid, std::uint64_t start_time, const process_identity& self) {
    if (pid == self.pid) return start_time == 0 || self.start_time == 0 || start_time == self.start_time;
    return process_alive(pid, start_time);
}

cuda_lock_waiter* find_waiter(cuda_lock_data& data, std::uint64_t ticket) noexcept {
    for (auto& waiter : data.waiters) {
        if (waiter.pid != 0 && waiter.ticket == ticket) return &waiter;
    }
    return nullptr;
}

// Under the mutex.
void announce_turn_change(cuda_lock_data& data) noexcept {
    // Release: the bookkeeping written before is visible to a waiter that reads the new epoch (it also
    // re-takes the mutex, which orders it anyway).
    data.turn_epoch.fetch_add(1, std::memory_order_release);
    // Sleepers hold tickets in [now_serving, next_ticket); with none queued the wake system call is skipped
    // (a waiter that queues later reads the new epoch under the mutex before it sleeps).
    if (data.next_ticket > data.now_serving) futex_wake_all(data.turn_epoch);
}

// Under the mutex. Moves the turn past a holder that died holding it, and past queued tickets whose waiter
// died or gave up. Returns true when the turn moved.
bool advance_turn(cuda_lock_data& data, const process_identity& self, const std::string& name) {
    bool moved = false;
    for (;;) {
        if (data.held != 0) {
            if (alive(data.holder_pid, data.holder_start_time, self)) break;
            const double held_ms = static_cast<double>(monotonic_ns() - data.held_since_ns) / 1e6;
            spdlog::warn("CUDA lock '{}': holder pid {} (thread {}) died holding the lock for {:.0f} ms; its turn "
                         "(ticket {}) is over",
                         name, data.holder_pid, data.holder_tid, held_ms, data.holder_ticket);
            ++data.stats.owner_death_recoveries;
            data.held = 0;
            keep_order();
            data.now_serving = data.holder_ticket + 1;
            moved = true;
            continue;
        }
        if (data.now_serving >= data.next_ticket) break;  // nobody queued
        auto* head = find_waiter(data, data.now_serving);
        if (head != nullptr && alive(head->pid, head->start_time, self)) break;
        if (head != nullptr) {
            spdlog::warn("CUDA lock '{}': waiter pid {} (thread {}) died queued with ticket {}; skipped", name,
                         head->pid, head->tid, head->ticket);
            head->pid = 0;
            ++data.stats.dead_waiters_skipped;
        }
        // No entry: its waiter gave up (try_acquire_for timed out) or died before registering.
        ++data.now_serving;
        moved = true;
    }
    if (moved) announce_turn_change(data);
    return moved;
}

// Under the mutex, for |self|, just queued at the end: it takes the ticket of the first queued waiter of a lower
// priority, and every queued waiter from there on moves up one ticket (into the numbers up to |self|'s old one),
// so each class stays FIFO. The holder's ticket is never taken: its kernels run on.
void queue_ahead_of_lower_priorities(cuda_lock_data& data, cuda_lock_waiter& self) noexcept {
    const std::uint64_t first_waiting = data.now_serving + (data.held != 0 ? 1 : 0);
    std::uint64_t place = self.ticket;
    for (const auto& waiter : data.waiters) {
        if (&waiter == &self || waiter.pid == 0) continue;
        if (waiter.ticket >= first_waiting && waiter.ticket < place && waiter.priority < self.priority)
            place = waiter.ticket;
    }
    if (place == self.ticket) return;
    for (auto& waiter : data.waiters) {
        if (&waiter == &self || waiter.pid == 0) continue;
        if (waiter.ticket >= place && waiter.ticket < self.ticket) ++waiter.ticket;
    }
    self.ticket = place;
    announce_turn_change(data);  // a waiter whose turn it was (not yet taken) looks again
}

}  // namespace

std::string cuda_lock::segment_name(int gpu_index) { return fmt::format("cuzk-cuda-lock-gpu{}", gpu_index); }

cuda_lock::cuda_lock(shm_segment segment, std::chrono::milliseconds liveness_poll)
    : segment_(std::move(segment)),
      data_(std::launder(reinterpret_cast<cuda_lock_data*>(segment_.data()))),
      liveness_poll_(liveness_poll) {}

cuda_lock cuda_lock::open_or_create(const cuda_lock_options& options) {
    if (options.liveness_poll.count() <= 0) {
        throw shm_error(shm_errc::invalid_argument,
                        fmt::format("CUDA lock '{}': liveness poll must be positive", options.segment.name));
    }
    for (int attempt = 0;; ++attempt) {
        try {
            auto segment = shm_segment::create(options.segment, sizeof(cuda_lock_data));
            auto* data = new (segment.data()) cuda_lock_data{};
            pthread_mutexattr_t attributes;
            ::pthread_mutexattr_init(&attributes);
            ::pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
            ::pthread_mutexattr_setrobust(&attributes, PTHREAD_MUTEX_ROBUST);
            const int rc = ::pthread_mutex_init(&data->mutex, &attributes);
            ::pthread_mutexattr_destroy(&attributes);
            if (rc != 0) {
                shm_segment::remove(options.segment);
                throw shm_error(shm_errc::system_error,
                                fmt::format("CUDA lock '{}': pthread_mutex_init: {}", options.segment.name,
                                            std::strerror(rc)),
                                rc);
            }
            publish_header(data, {magic, layout_version, sizeof(cuda_lock_data), cuda_lock_waiter_capacity, 0,
                                  options.segment.service});
            return cuda_lock(std::move(segment), options.liveness_poll);
        } catch (const shm_error& e) {
            if (e.code() != shm_errc::already_exists) throw;
        }
        try {
            auto segment = shm_segment::attach(options.segment, magic, layout_version);
            if (segment.size() < sizeof(cuda_lock_data)) {
                throw shm_error(shm_errc::incompatible,
                                fmt::format("CUDA lock '{}' is {} bytes, expected {}", options.segment.name,
                                            segment.size(), sizeof(cuda_lock_data)));
            }
            return cuda_lock(std::move(segment), options.liveness_poll);
        } catch (const shm_error& e) {
            if (e.code() != shm_errc::not_found || attempt > 0) throw;  // removed in between: once more
        }
    }
}

bool cuda_lock::remove(const segment_location& where) { return shm_segment::remove(where); }

cuda_lock_guard cuda_lock::acquire(std::int32_t priority) {
    return std::move(*acquire_until(std::nullopt, nullptr, priority));
}

std::optional<cuda_lock_guard> cuda_lock::try_acquire_for(std::chrono::nanoseconds timeout, std::int32_t priority) {
    return acquire_until(std::chrono::steady_clock::now() + timeout, nullptr, priority);
}

std::optional<cuda_lock_guard> cuda_lock::acquire_unless(const std::function<bool()>& give_up,
                                                         std::int32_t priority) {
    return acquire_until(std::nullopt, &give_up, priority);
}

std::optional<cuda_lock_guard> cuda_lock::acquire_until(std::optional<std::chrono::steady_clock::time_point> deadline,
                                                        const std::function<bool()>* give_up,
                                                        std::int32_t priority) {
    const auto& name = location().name;
    const auto self = current_process();
    const auto tid = current_thread_id();
    const auto start_ns = monotonic_ns();
    auto& data = *data_;

    bookkeeping_lock lock(data, name);
    auto find_free = [&]() -> cuda_lock_waiter* {
        for (auto& waiter : data.waiters) {
            if (waiter.pid == 0) return &waiter;
        }
        return nullptr;
    };
    auto* entry = find_free();
    if (entry == nullptr) {
        for (auto& waiter : data.waiters) {  // entries of dead processes still queued: drop them
            if (waiter.pid != 0 && !process_alive(waiter.pid, waiter.start_time)) waiter.pid = 0;
        }
        entry = find_free();
        if (entry == nullptr) {
            throw std::runtime_error(fmt::format("CUDA lock '{}': more than {} waiters queued", name,
                                                 cuda_lock_waiter_capacity));
        }
    }
    entry->ticket = data.next_ticket;
    entry->tid = tid;
    entry->start_time = self.start_time;
    entry->since_ms = realtime_ms();
    entry->priority = priority;
    keep_order();
    entry->pid = self.pid;
    keep_order();
    data.next_ticket = entry->ticket + 1;
    queue_ahead_of_lower_priorities(data, *entry);

    // The ticket is read from the entry each time: a later waiter of a higher priority moves it up.
    for (;;) {
        advance_turn(data, self, name);
        if (data.held == 0 && data.now_serving == entry->ticket) break;
        if (give_up && (*give_up)()) {
            entry->pid = 0;  // as at a deadline: the ticket is skipped when its turn comes
            return std::nullopt;
        }
        auto timeout = std::chrono::nanoseconds(liveness_poll_);
        if (deadline) {
            const auto now = std::chrono::steady_clock::now();
            if (now >= *deadline) {
                entry->pid = 0;  // abandon the ticket: advance_turn skips it when its turn comes
                return std::nullopt;
            }
            timeout = std::min<std::chrono::nanoseconds>(timeout, *deadline - now);
        }
        lock.wait_for_turn_change(timeout, name);
    }

    const auto now_ns = monotonic_ns();
    data.holder_pid = self.pid;
    data.holder_tid = tid;
    data.holder_start_time = self.start_time;
    const std::uint64_t ticket = entry->ticket;
    data.holder_ticket = ticket;
    data.held_since_ns = now_ns;
    data.held_since_ms = realtime_ms();
    keep_order();
    data.held = 1;
    keep_order();
    entry->pid = 0;
    const auto wait_ns = now_ns - start_ns;
    ++data.stats.acquisitions;
    data.stats.total_wait_ns += wait_ns;
    data.stats.max_wait_ns = std::max(data.stats.max_wait_ns, wait_ns);

    cuda_lock_guard guard;
    guard.data_ = data_;
    guard.name_ = name;
    guard.ticket_ = ticket;
    guard.wait_ns_ = wait_ns;
    guard.acquired_ns_ = now_ns;
    guard.acquired_at_ms_ = data.held_since_ms;
    return guard;
}

cuda_lock_guard& cuda_lock_guard::operator=(cuda_lock_guard&& other) noexcept {
    if (this != &other) {
        release();
        data_ = std::exchange(other.data_, nullptr);
        name_ = std::move(other.name_);
        ticket_ = other.ticket_;
        wait_ns_ = other.wait_ns_;
        acquired_ns_ = other.acquired_ns_;
        acquired_at_ms_ = other.acquired_at_ms_;
    }
    return *this;
}

lock_timing cuda_lock_guard::release() noexcept {
    if (data_ == nullptr) return {};
    auto& data = *std::exchange(data_, nullptr);
    const auto self = current_process();
    lock_timing timing;
    timing.wait_ms = static_cast<double>(wait_ns_) / 1e6;
    timing.acquired_at_ms = acquired_at_ms_;
    try {
        bookkeeping_lock lock(data, name_);
        const auto now_ns = monotonic_ns();
        const auto hold_ns = now_ns - acquired_ns_;
        timing.hold_ms = static_cast<double>(hold_ns) / 1e6;
        timing.released_at_ms = realtime_ms();
        if (data.held == 0 || data.holder_ticket != ticket_ || data.holder_pid != self.pid) {
            timing.lost = true;
            spdlog::error("CUDA lock '{}': turn {} of pid {} had been taken away before release (held {:.0f} ms)",
                          name_, ticket_, self.pid, timing.hold_ms);
            return timing;
        }
        data.stats.total_hold_ns += hold_ns;
        data.stats.max_hold_ns = std::max(data.stats.max_hold_ns, hold_ns);
        data.held = 0;
        keep_order();
        data.now_serving = ticket_ + 1;
        if (!advance_turn(data, self, name_)) announce_turn_change(data);
    } catch (const std::exception& e) {
        spdlog::error("CUDA lock '{}': release of turn {} failed: {}", name_, ticket_, e.what());
        timing.lost = true;
    }
    return timing;
}

cuda_lock_stats cuda_lock::statistics() const {
    bookkeeping_lock lock(*data_, location().name);
    return data_->stats;
}

lock_state cuda_lock::state() const {
    bookkeeping_lock lock(*data_, location().name);
    lock_state out;
    out.held = data_->held != 0;
    out.holder_pid = out.held ? data_->holder_pid : 0;
    out.holder_tid = out.held ? data_->holder_tid : 0;
    out.held_since_ms = out.held ? data_->held_since_ms : 0;
    out.now_serving = data_->now_serving;
    out.next_ticket = data_->next_ticket;
    out.waiting = static_cast<std::uint32_t>(
        std::count_if(std::begin(data_->waiters), std::end(data_->waiters), [](const auto& w) { return w.pid != 0; }));
    return out;
}

}  // namespace cuzk::ipc
