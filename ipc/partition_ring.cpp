#include "ipc/partition_ring.hpp"

#include "ipc/clock.hpp"
#include "ipc/process_identity.hpp"
#include "ipc/shared_futex.hpp"
#include "ipc/shm_error.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <limits>
#include <new>
#include <stdexcept>

namespace cuzk::ipc {
namespace {

constexpr std::uint32_t max_slot_count = 65536;
constexpr std::uint64_t max_slot_bytes = std::uint64_t{1} << 40;

process_identity self_for_slots() {
    const auto self = current_process();
    if (static_cast<std::uint64_t>(self.pid) >= slot_word::pid_limit) {
        throw std::runtime_error(fmt::format("pid {} does not fit the ring's 24-bit holder field", self.pid));
    }
    return self;
}

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
    publish_header(base, {magic, layout_version, geometry.segment_bytes, config.slot_count, config.slot_bytes});
    spdlog::info("ring '{}': created {} slots of {} ({} in {})", config.segment.name, config.slot_count,
                 format_bytes(config.slot_bytes), format_bytes(geometry.segment_bytes),
                 config.segment.backing_path().string());
    return partition_ring(std::move(segment));
}

partition_ring partition_ring::open(const segment_location& where, std::chrono::milliseconds creation_wait) {
    auto segment = shm_segment::attach(where, magic, layout_version, creation_wait);
    const auto* header = std::launder(reinterpret_cast<const shm_header*>(segment.data()));
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

std::optional<write_claim> partition_ring::claim_for_write(std::uint64_t job_id, std::uint32_t partition) {
    const auto self = self_for_slots();
    const std::uint32_t count = slot_count();
    // Relaxed: the hint only spreads claims over the slots; correctness rests on the CAS below.
    const std::uint32_t start = control_->claim_hint.fetch_add(1, std::memory_order_relaxed) % count;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t index = (start + i) % count;
        ring_slot& s = slot(index);
        // Relaxed: a pre-check only; the CAS re-reads the word.
        std::uint64_t observed = s.control.load(std::memory_order_relaxed);
        const auto word = slot_word::unpack(observed);
        if (word.state != slot_state::free) continue;
        const slot_word claimed{slot_state::writing, self.pid, word.generation + 1};
        // Acquire on success: pairs with the release that freed the slot, so the previous prover's reads of
        // the payload happen-before our writes to it. Relaxed on failure: we just move on.
        if (!s.control.compare_exchange_strong(observed, claimed.pack(), std::memory_order_acquire,
                                               std::memory_order_relaxed)) {
            continue;
        }
        // Relaxed: metadata of a slot we hold; published to the prover by commit's release CAS.
        s.holder_start_time.store(self.start_time, std::memory_order_relaxed);
        s.job_id.store(job_id, std::memory_order_relaxed);
        s.partition.store(partition, std::memory_order_relaxed);
        s.payload_bytes.store(0, std::memory_order_relaxed);
        s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);
        auto* payload = segment_.data() + s.payload_offset;
        return write_claim{index, claimed.generation, {payload, static_cast<std::size_t>(slot_bytes())}};
    }
    control_->full_claims.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    return std::nullopt;
}

std::optional<write_claim> partition_ring::claim_for_write(std::uint64_t job_id, std::uint32_t partition,
                                                           std::chrono::nanoseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        // Acquire, read before the attempt: a slot freed after it bumps the epoch, so the futex wait below
        // returns at once instead of sleeping through that release.
        const auto epoch = control_->free_epoch.load(std::memory_order_acquire);
        if (auto claim = claim_for_write(job_id, partition)) return claim;
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return std::nullopt;
        sleep_on(control_->free_epoch, control_->free_sleepers, epoch, deadline - now);
    }
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

transition_status partition_ring::commit(const write_claim& claim, std::uint64_t payload_bytes,
                                         std::uint32_t payload_format) {
    if (claim.slot >= slot_count()) return transition_status::no_such_slot;
    if (payload_bytes > slot_bytes()) {
        throw std::length_error(fmt::format("ring '{}' slot {}: payload of {} bytes exceeds the slot size of {} bytes",
                                            location().name, claim.slot, payload_bytes, slot_bytes()));
    }
    const auto self = self_for_slots();
    ring_slot& s = slot(claim.slot);
    const std::uint64_t held = slot_word{slot_state::writing, self.pid, claim.generation}.pack();
    // Relaxed: only we can move a slot we hold (reclaim touches dead holders only), so seeing our own word
    // here means the metadata writes below land in our tenancy.
    const std::uint64_t observed = s.control.load(std::memory_order_relaxed);
    if (observed != held) return diagnose(observed, slot_state::writing, claim.generation, self.pid);

    // Relaxed: published by the release CAS below.
    s.payload_bytes.store(payload_bytes, std::memory_order_relaxed);
    s.payload_format.store(payload_format, std::memory_order_relaxed);
    // Relaxed: the sequence only has to be unique and increasing; the CAS publishes it.
    s.commit_seq.store(control_->next_commit_seq.fetch_add(1, std::memory_order_relaxed), std::memory_order_relaxed);
    s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);
    s.holder_start_time.store(0, std::memory_order_relaxed);  // see reclaim_dead: cleared before leaving

    std::uint64_t expected = held;
    // Release: the payload and the metadata above happen-before the prover's acquire in take_ready.
    if (!s.control.compare_exchange_strong(expected, slot_word{slot_state::ready, 0, claim.generation}.pack(),
                                           std::memory_order_release, std::memory_order_relaxed)) {
        return diagnose(expected, slot_state::writing, claim.generation, self.pid);
    }
    control_->commits.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    wake_provers();
    return transition_status::ok;
}

transition_status partition_ring::abort(const write_claim& claim) {
    if (claim.slot >= slot_count()) return transition_status::no_such_slot;
    const auto self = self_for_slots();
    ring_slot& s = slot(claim.slot);
    std::uint64_t expected = slot_word{slot_state::writing, self.pid, claim.generation}.pack();
    // Relaxed: pre-check, as in commit.
    const std::uint64_t observed = s.control.load(std::memory_order_relaxed);
    if (observed != expected) return diagnose(observed, slot_state::writing, claim.generation, self.pid);
    s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);
    s.holder_start_time.store(0, std::memory_order_relaxed);
    // Release: our partial writes to the payload happen-before the next writer's acquire claim.
    if (!s.control.compare_exchange_strong(expected, slot_word{slot_state::free, 0, claim.generation}.pack(),
                                           std::memory_order_release, std::memory_order_relaxed)) {
        return diagnose(expected, slot_state::writing, claim.generation, self.pid);
    }
    control_->aborts.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    wake_writers();
    return transition_status::ok;
}

std::optional<proving_claim> partition_ring::take_ready() {
    const auto self = self_for_slots();
    const std::uint32_t count = slot_count();
    for (;;) {
        std::uint32_t best = count;
        std::uint64_t best_word = 0;
        std::uint64_t best_seq = std::numeric_limits<std::uint64_t>::max();
        for (std::uint32_t i = 0; i < count; ++i) {
            ring_slot& s = slot(i);
            // Acquire: pairs with commit's release, so commit_seq read next belongs to this READY tenancy.
            const std::uint64_t observed = s.control.load(std::memory_order_acquire);
            if (slot_word::unpack(observed).state != slot_state::ready) continue;
            const auto seq = s.commit_seq.load(std::memory_order_relaxed);  // relaxed: ordered by the acquire above
            if (seq < best_seq) {
                best = i;
                best_seq = seq;
                best_word = observed;
            }
        }
        if (best == count) return std::nullopt;

        ring_slot& s = slot(best);
        const auto word = slot_word::unpack(best_word);
        std::uint64_t expected = best_word;
        // Acquire on success: pairs with commit's release (or reclaim's), making the payload visible.
        // Relaxed on failure: another prover won it; rescan.
        if (!s.control.compare_exchange_strong(expected, slot_word{slot_state::proving, self.pid, word.generation}.pack(),
                                               std::memory_order_acquire, std::memory_order_relaxed)) {
            continue;
        }
        // Relaxed: metadata of a slot we hold; the acquire CAS above made the committed values visible.
        s.holder_start_time.store(self.start_time, std::memory_order_relaxed);
        s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);
        proving_claim claim;
        claim.slot = best;
        claim.generation = word.generation;
        claim.job_id = s.job_id.load(std::memory_order_relaxed);
        claim.partition = s.partition.load(std::memory_order_relaxed);
        claim.payload_format = s.payload_format.load(std::memory_order_relaxed);
        claim.commit_seq = s.commit_seq.load(std::memory_order_relaxed);
        const auto bytes = s.payload_bytes.load(std::memory_order_relaxed);
        claim.payload = {segment_.data() + s.payload_offset, static_cast<std::size_t>(bytes)};
        return claim;
    }
}

std::optional<proving_claim> partition_ring::take_ready(std::chrono::nanoseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        // Acquire, read before the attempt: see claim_for_write(wait).
        const auto epoch = control_->ready_epoch.load(std::memory_order_acquire);
        if (auto claim = take_ready()) return claim;
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return std::nullopt;
        sleep_on(control_->ready_epoch, control_->ready_sleepers, epoch, deadline - now);
    }
}

transition_status partition_ring::release(const proving_claim& claim) {
    if (claim.slot >= slot_count()) return transition_status::no_such_slot;
    const auto self = self_for_slots();
    ring_slot& s = slot(claim.slot);
    std::uint64_t expected = slot_word{slot_state::proving, self.pid, claim.generation}.pack();
    // Relaxed: pre-check, as in commit.
    const std::uint64_t observed = s.control.load(std::memory_order_relaxed);
    if (observed != expected) return diagnose(observed, slot_state::proving, claim.generation, self.pid);
    s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);
    s.holder_start_time.store(0, std::memory_order_relaxed);
    // Release: our reads of the payload happen-before the next writer's acquire claim overwrites it.
    if (!s.control.compare_exchange_strong(expected, slot_word{slot_state::free, 0, claim.generation}.pack(),
                                           std::memory_order_release, std::memory_order_relaxed)) {
        return diagnose(expected, slot_state::proving, claim.generation, self.pid);
    }
    control_->releases.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    wake_writers();
    return transition_status::ok;
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

std::size_t partition_ring::discard_ready(std::uint64_t job_id) {
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
