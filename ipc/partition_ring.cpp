#include "ipc/partition_ring.hpp"

#include "ipc/clock.hpp"
#include "ipc/process_identity.hpp"
#include "ipc/shared_futex.hpp"
#include "ipc/shm_error.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <new>
#include <stdexcept>

namespace cuzk::ipc {
namespace {

constexpr std::uint32_t max_slot_count = 65536;
constexpr std::uint64_t max_slot_bytes = std::uint64_t{1} << 40;

void check_config(const ring_config& config) {
    if (config.slot_count == 0 || config.slot_count > max_slot_count || config.slot_bytes == 0 ||
        config.slot_bytes > max_slot_bytes) {
        throw shm_error(shm_errc::invalid_argument,
                        fmt::format("ring '{}': {} slots of {} bytes; slot count must be 1..{} and slot size "
                                    "1 B..{}",
                                    config.segment.name, config.slot_count, config.slot_bytes, max_slot_count,
                                    format_bytes(max_slot_bytes)));
    }
}

}  // namespace

std::string_view to_string(transition_status status) noexcept {
    switch (status) {
        case transition_status::ok: return "ok";
        case transition_status::no_such_slot: return "no_such_slot";
        case transition_status::stale_generation: return "stale_generation";
        case transition_status::wrong_state: return "wrong_state";
        case transition_status::not_holder: return "not_holder";
    }
    return "unknown";
}

std::string_view to_string(slot_state state) noexcept {
    switch (state) {
        case slot_state::free: return "FREE";
        case slot_state::writing: return "WRITING";
        case slot_state::ready: return "READY";
        case slot_state::proving: return "PROVING";
    }
    return "UNKNOWN";
}

partition_ring::partition_ring(shm_segment segment) : segment_(std::move(segment)) {
    auto* base = segment_.data();
    header_ = std::launder(reinterpret_cast<shm_header*>(base));
    control_ = std::launder(reinterpret_cast<ring_control*>(base + sizeof(shm_header)));
    slots_ = std::launder(reinterpret_cast<ring_slot*>(base + control_->slots_offset));
}

partition_ring partition_ring::create(const ring_config& config) {
    check_config(config);
    const auto geometry = ring_geometry_for(config.slot_count, config.slot_bytes);
    auto segment = shm_segment::create(config.segment, geometry.segment_bytes);
    auto* base = segment.data();  // zero-filled by the kernel

    auto* control = new (base + sizeof(shm_header)) ring_control{};
    control->slots_offset = geometry.slots_offset;
    control->payloads_offset = geometry.payloads_offset;
    control->slot_stride = geometry.slot_stride;
    const auto now = realtime_ms();
    for (std::uint32_t i = 0; i < config.slot_count; ++i) {
        auto* slot = new (base + geometry.slots_offset + std::uint64_t{i} * sizeof(ring_slot)) ring_slot{};
        slot->payload_offset = geometry.payloads_offset + std::uint64_t{i} * geometry.slot_stride;
        slot->state_since_ms.store(now, std::memory_order_relaxed);  // relaxed: published by the header's release
    }
    publish_header(base, {magic, layout_version, geometry.segment_bytes, config.slot_count, config.slot_bytes,
                          config.segment.service});
    spdlog::info("ring '{}': created {} slots of {} ({} in {})", config.segment.name, config.slot_count,
                 format_bytes(config.slot_bytes), format_bytes(geometry.segment_bytes),
                 config.segment.backing_path().string());
    return partition_ring(std::move(segment));
}

partition_ring partition_ring::open(const segment_location& where, std::chrono::milliseconds creation_wait) {
    auto segment = shm_segment::attach(where, magic, layout_version, creation_wait);
    const auto* header = std::launder(reinterpret_cast<const shm_header*>(segment.data()));
    // Bounded first: a slot count or size beyond them would wrap the geometry's arithmetic (a corrupt or hostile
    // header could then map slots outside the segment).
    if (header->slot_count == 0 || header->slot_count > max_slot_count || header->slot_bytes == 0 ||
        header->slot_bytes > max_slot_bytes) {
        throw shm_error(shm_errc::incompatible,
                        fmt::format("ring '{}': header declares {} slots of {} bytes, beyond 1..{} slots of 1 B..{}; "
                                    "the segment is corrupt, remove {}",
                                    where.name, header->slot_count, header->slot_bytes, max_slot_count,
                                    format_bytes(max_slot_bytes), where.backing_path().string()));
    }
    const auto geometry = ring_geometry_for(header->slot_count, header->slot_bytes);
    const auto* control = std::launder(reinterpret_cast<const ring_control*>(segment.data() + sizeof(shm_header)));
    if (geometry.segment_bytes != header->segment_bytes || control->slots_offset != geometry.slots_offset ||
        control->payloads_offset != geometry.payloads_offset || control->slot_stride != geometry.slot_stride) {
        throw shm_error(shm_errc::incompatible,
                        fmt::format("ring '{}': header declares {} bytes, its {} slots of {} bytes need {} (or its "
                                    "offsets disagree); the segment is corrupt, remove {}",
                                    where.name, header->segment_bytes, header->slot_count, header->slot_bytes,
                                    geometry.segment_bytes, where.backing_path().string()));
    }
    // Every slot's payload where the geometry puts it: a payload_offset elsewhere would hand out memory outside
    // the segment (or another slot's).
    const auto* slots = std::launder(reinterpret_cast<const ring_slot*>(segment.data() + geometry.slots_offset));
    for (std::uint32_t i = 0; i < header->slot_count; ++i) {
        if (slots[i].payload_offset != geometry.payloads_offset + std::uint64_t{i} * geometry.slot_stride) {
            throw shm_error(shm_errc::incompatible,
                            fmt::format("ring '{}': slot {} places its payload at offset {}, not {}; the segment is "
                                        "corrupt, remove {}",
                                        where.name, i, slots[i].payload_offset,
                                        geometry.payloads_offset + std::uint64_t{i} * geometry.slot_stride,
                                        where.backing_path().string()));
        }
    }
    return partition_ring(std::move(segment));
}

partition_ring partition_ring::open_or_create(const ring_config& config) {
    check_config(config);
    for (int attempt = 0;; ++attempt) {
        try {
            return create(config);
        } catch (const shm_error& e) {
            if (e.code() != shm_errc::already_exists) throw;
        }
        try {
            auto ring = open(config.segment);
            if (ring.slot_count() != config.slot_count || ring.slot_bytes() != config.slot_bytes) {
                throw shm_error(shm_errc::incompatible,
                                fmt::format("ring '{}' exists with {} slots of {} bytes, the configuration asks for "
                                            "{} slots of {} bytes: stop the stages using it and remove {}",
                                            config.segment.name, ring.slot_count(), ring.slot_bytes(),
                                            config.slot_count, config.slot_bytes,
                                            config.segment.backing_path().string()));
            }
            return ring;
        } catch (const shm_error& e) {
            // Removed between our create and open: try once more.
            if (e.code() != shm_errc::not_found || attempt > 0) throw;
        }
    }
}

bool partition_ring::remove(const segment_location& where) { return shm_segment::remove(where); }

process_identity partition_ring::self_as_holder() {
    const auto self = current_process();
    if (static_cast<std::uint64_t>(self.pid) >= slot_word::pid_limit) {
        throw std::runtime_error(fmt::format("pid {} does not fit the ring's 24-bit holder field", self.pid));
    }
    return self;
}

transition_status partition_ring::diagnose(std::uint64_t observed, slot_state expected_state,
                                           std::uint32_t generation, pid_t holder) const noexcept {
    const auto word = slot_word::unpack(observed);
    if (word.generation != generation) return transition_status::stale_generation;
    if (word.state != expected_state) return transition_status::wrong_state;
    if (word.holder != holder) return transition_status::not_holder;
    return transition_status::ok;
}

// Waker: bump the epoch, then look for sleepers. Sleeper: count itself in, then sleep unless the epoch
// moved. Both pairs are seq_cst, so either the waker sees the sleeper (and wakes it) or the sleeper's futex
// sees the new epoch (and does not sleep): no lost wake-up, and no system call when nobody sleeps.
void partition_ring::wake(std::atomic<std::uint32_t>& epoch, std::atomic<std::uint32_t>& sleepers) noexcept {
    // Seq_cst: must not be reordered with the sleepers load below (store-load, Dekker style); as a release
    // it also publishes the slot's new state to a waiter that sees the new epoch.
    epoch.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) != 0) futex_wake_all(epoch);  // seq_cst: see above
}

void partition_ring::sleep_on(std::atomic<std::uint32_t>& epoch, std::atomic<std::uint32_t>& sleepers,
                              std::uint32_t seen, std::chrono::nanoseconds timeout) noexcept {
    sleepers.fetch_add(1, std::memory_order_seq_cst);  // seq_cst: pairs with wake(), see above
    futex_wait(epoch, seen, timeout);
    sleepers.fetch_sub(1, std::memory_order_relaxed);  // relaxed: an extra wake is the only effect of a late one
}

// A holder stores its start time right after its claiming CAS and clears it right before the CAS that gives
// the slot up. So a nonzero start time read between two equal loads of the control word belongs to that
// word's holder (the generation rules out ABA), and 0 means "not known yet": then the pid alone decides,
// which can only err towards keeping a slot, never towards taking one from a live process.
std::vector<reclaimed_slot> partition_ring::reclaim_dead() {
    const auto self = current_process();
    std::vector<reclaimed_slot> reclaimed;
    for (std::uint32_t i = 0; i < slot_count(); ++i) {
        ring_slot& s = slot(i);
        // Acquire: orders the start-time load below after this load.
        const std::uint64_t before = s.control.load(std::memory_order_acquire);
        const auto word = slot_word::unpack(before);
        if (word.state != slot_state::writing && word.state != slot_state::proving) continue;
        // Acquire: keeps the re-load of the control word below after this load.
        const auto start_time = s.holder_start_time.load(std::memory_order_acquire);
        // Relaxed: only compared with |before|; any change means the slot moved and is not ours to judge.
        if (s.control.load(std::memory_order_relaxed) != before) continue;
        if (word.holder == self.pid) {
            // Our own threads are alive; a holder with our pid but another start time is a previous
            // incarnation of this daemon that died (the restarted process got the same pid).
            if (start_time == 0 || start_time == self.start_time) continue;
        } else if (process_alive(word.holder, start_time)) {
            continue;
        }

        const bool was_writing = word.state == slot_state::writing;
        const slot_word after{was_writing ? slot_state::free : slot_state::ready, 0, word.generation + 1};
        // Relaxed: for the report only; ordered after the acquire load of |before|.
        const auto job_id = s.job_id.load(std::memory_order_relaxed);
        const auto partition = s.partition.load(std::memory_order_relaxed);
        // Relaxed: clears the dead holder's start time; published by the CAS below (see the comment above).
        s.holder_start_time.store(0, std::memory_order_relaxed);
        std::uint64_t expected = before;
        // Acq_rel: acquire to take over what the dead holder published; release so the next claimer (or
        // prover, for a READY slot) sees the metadata, as after any commit.
        if (!s.control.compare_exchange_strong(expected, after.pack(), std::memory_order_acq_rel,
                                               std::memory_order_relaxed)) {
            continue;  // another reclaimer was first
        }
        s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);  // relaxed: informational timestamp
        reclaimed.push_back({i, word.state, after.generation, word.holder, job_id, partition});
        // Relaxed: statistics.
        (was_writing ? control_->reclaimed_writing : control_->reclaimed_proving).fetch_add(1, std::memory_order_relaxed);
        was_writing ? wake_writers() : wake_provers();
        spdlog::warn("ring '{}': slot {} was {} by dead pid {} (job {}, partition {}); now {}, generation {}",
                     location().name, i, to_string(word.state), word.holder, job_id, partition,
                     to_string(after.state), after.generation);
    }
    return reclaimed;
}

std::size_t partition_ring::discard_ready_of(std::uint64_t job_id) {
    std::size_t discarded = 0;
    for (std::uint32_t i = 0; i < slot_count(); ++i) {
        ring_slot& s = slot(i);
        // Acquire: the job id read next belongs to this READY tenancy (published by commit's release).
        std::uint64_t observed = s.control.load(std::memory_order_acquire);
        const auto word = slot_word::unpack(observed);
        if (word.state != slot_state::ready || s.job_id.load(std::memory_order_relaxed) != job_id) continue;
        // Release: nothing was read; it keeps the slot's history ordered for the next claimer like any free.
        if (s.control.compare_exchange_strong(observed, slot_word{slot_state::free, 0, word.generation}.pack(),
                                              std::memory_order_release, std::memory_order_relaxed)) {
            s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);
            ++discarded;
        }
    }
    if (discarded > 0) {
        control_->discarded.fetch_add(discarded, std::memory_order_relaxed);  // relaxed: a statistic
        wake_writers();
    }
    return discarded;
}

std::vector<slot_snapshot> partition_ring::snapshot() const {
    std::vector<slot_snapshot> out;
    out.reserve(slot_count());
    for (std::uint32_t i = 0; i < slot_count(); ++i) {
        const ring_slot& s = slot(i);
        // Acquire: the metadata read next is at least as new as this state (a report, not a guarantee).
        const auto word = slot_word::unpack(s.control.load(std::memory_order_acquire));
        out.push_back({i, word.state, word.generation, word.holder, s.job_id.load(std::memory_order_relaxed),
                       s.partition.load(std::memory_order_relaxed), s.payload_bytes.load(std::memory_order_relaxed),
                       s.commit_seq.load(std::memory_order_relaxed), s.state_since_ms.load(std::memory_order_relaxed)});
    }
    return out;
}

ring_counters partition_ring::counters() const {
    // Relaxed: independent statistics.
    constexpr auto r = std::memory_order_relaxed;
    return {control_->commits.load(r),           control_->releases.load(r),          control_->aborts.load(r),
            control_->full_claims.load(r),       control_->reclaimed_writing.load(r), control_->reclaimed_proving.load(r),
            control_->discarded.load(r)};
}

}  // namespace cuzk::ipc