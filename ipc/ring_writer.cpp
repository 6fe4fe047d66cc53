#include "ipc/ring_writer.hpp"

#include "ipc/clock.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace cuzk::ipc {

std::optional<write_claim> ring_writer::claim_for_write(std::uint64_t job_id, std::uint32_t partition,
                                                        std::uint32_t keep_free) {
    const auto self = partition_ring::self_as_holder();
    const std::uint32_t count = ring_.slot_count();
    std::lock_guard serialized(*claim_mutex_);
    if (keep_free > 0) {
        std::uint32_t free = 0;
        for (std::uint32_t i = 0; i < count; ++i) {
            // Relaxed: a count only; other processes can only free slots meanwhile, never take one.
            free += slot_word::unpack(ring_.slot(i).control.load(std::memory_order_relaxed)).state == slot_state::free;
        }
        if (free <= keep_free) {
            ring_.control_->full_claims.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
            return std::nullopt;
        }
    }
    // Relaxed: the hint only spreads claims over the slots; correctness rests on the CAS below.
    const std::uint32_t start = ring_.control_->claim_hint.fetch_add(1, std::memory_order_relaxed) % count;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t index = (start + i) % count;
        ring_slot& s = ring_.slot(index);
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
        auto* payload = ring_.payload_of(s);
        return write_claim{index, claimed.generation, {payload, static_cast<std::size_t>(ring_.slot_bytes())}};
    }
    ring_.control_->full_claims.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    return std::nullopt;
}

std::optional<write_claim> ring_writer::claim_for_write(std::uint64_t job_id, std::uint32_t partition,
                                                        std::chrono::nanoseconds wait, std::uint32_t keep_free) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        // Acquire, read before the attempt: a slot freed after it bumps the epoch, so the futex wait below
        // returns at once instead of sleeping through that release.
        const auto epoch = ring_.control_->free_epoch.load(std::memory_order_acquire);
        if (auto claim = claim_for_write(job_id, partition, keep_free)) return claim;
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return std::nullopt;
        partition_ring::sleep_on(ring_.control_->free_epoch, ring_.control_->free_sleepers, epoch, deadline - now);
    }
}

transition_status ring_writer::commit(const write_claim& claim, std::uint64_t payload_bytes,
                                      std::uint32_t payload_format, std::int32_t priority) {
    if (claim.slot >= ring_.slot_count()) return transition_status::no_such_slot;
    if (payload_bytes > ring_.slot_bytes()) {
        throw std::length_error(fmt::format("ring '{}' slot {}: payload of {} bytes exceeds the slot size of {} bytes",
                                            ring_.location().name, claim.slot, payload_bytes, ring_.slot_bytes()));
    }
    const auto self = partition_ring::self_as_holder();
    ring_slot& s = ring_.slot(claim.slot);
    const std::uint64_t held = slot_word{slot_state::writing, self.pid, claim.generation}.pack();
    // Relaxed: only we can move a slot we hold (reclaim touches dead holders only), so seeing our own word
    // here means the metadata writes below land in our tenancy.
    const std::uint64_t observed = s.control.load(std::memory_order_relaxed);
    if (observed != held) return ring_.diagnose(observed, slot_state::writing, claim.generation, self.pid);

    // Relaxed: published by the release CAS below.
    s.payload_bytes.store(payload_bytes, std::memory_order_relaxed);
    s.payload_format.store(payload_format, std::memory_order_relaxed);
    // Relaxed: the sequence only has to be unique and increasing; the CAS publishes it.
    s.commit_seq.store(take_order_of(priority, ring_.control_->next_commit_seq.fetch_add(1, std::memory_order_relaxed)),
                       std::memory_order_relaxed);
    s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);
    // Cleared before the slot leaves us: see partition_ring::reclaim_dead.
    s.holder_start_time.store(0, std::memory_order_relaxed);

    std::uint64_t expected = held;
    // Release: the payload and the metadata above happen-before the prover's acquire in ring_prover::take_ready.
    if (!s.control.compare_exchange_strong(expected, slot_word{slot_state::ready, 0, claim.generation}.pack(),
                                           std::memory_order_release, std::memory_order_relaxed)) {
        return ring_.diagnose(expected, slot_state::writing, claim.generation, self.pid);
    }
    ring_.control_->commits.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    ring_.wake_provers();
    return transition_status::ok;
}

transition_status ring_writer::abort(const write_claim& claim) {
    if (claim.slot >= ring_.slot_count()) return transition_status::no_such_slot;
    const auto self = partition_ring::self_as_holder();
    ring_slot& s = ring_.slot(claim.slot);
    std::uint64_t expected = slot_word{slot_state::writing, self.pid, claim.generation}.pack();
    // Relaxed: pre-check, as in commit.
    const std::uint64_t observed = s.control.load(std::memory_order_relaxed);
    if (observed != expected) return ring_.diagnose(observed, slot_state::writing, claim.generation, self.pid);
    s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);
    s.holder_start_time.store(0, std::memory_order_relaxed);
    // Release: our partial writes to the payload happen-before the next writer's acquire claim.
    if (!s.control.compare_exchange_strong(expected, slot_word{slot_state::free, 0, claim.generation}.pack(),
                                           std::memory_order_release, std::memory_order_relaxed)) {
        return ring_.diagnose(expected, slot_state::writing, claim.generation, self.pid);
    }
    ring_.control_->aborts.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    ring_.wake_writers();
    return transition_status::ok;
}

}  // namespace cuzk::ipc
