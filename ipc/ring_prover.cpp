#include "ipc/ring_prover.hpp"

#include "ipc/clock.hpp"

#include <limits>

namespace cuzk::ipc {

std::optional<proving_claim> ring_prover::take_ready(std::int32_t min_class) {
    const auto self = partition_ring::self_as_holder();
    const std::uint32_t count = ring_.slot_count();
    for (;;) {
        std::uint32_t best = count;
        std::uint64_t best_word = 0;
        std::uint64_t best_seq = std::numeric_limits<std::uint64_t>::max();
        for (std::uint32_t i = 0; i < count; ++i) {
            ring_slot& s = ring_.slot(i);
            // Acquire: pairs with ring_writer::commit's release, so commit_seq read next belongs to this READY
            // tenancy.
            const std::uint64_t observed = s.control.load(std::memory_order_acquire);
            if (slot_word::unpack(observed).state != slot_state::ready) continue;
            const auto seq = s.commit_seq.load(std::memory_order_relaxed);  // relaxed: ordered by the acquire above
            if (seq < best_seq && priority_class_of(seq) >= min_class) {
                best = i;
                best_seq = seq;
                best_word = observed;
            }
        }
        if (best == count) return std::nullopt;

        ring_slot& s = ring_.slot(best);
        const auto word = slot_word::unpack(best_word);
        std::uint64_t expected = best_word;
        // Acquire on success: pairs with ring_writer::commit's release (or reclaim_dead's), making the payload
        // visible. Relaxed on failure: another prover won it; rescan.
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
        claim.payload = {ring_.payload_of(s), static_cast<std::size_t>(bytes)};
        return claim;
    }
}

std::optional<proving_claim> ring_prover::take_ready(std::chrono::nanoseconds wait, std::int32_t min_class) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (;;) {
        // Acquire, read before the attempt: see ring_writer::claim_for_write(wait).
        const auto epoch = ring_.control_->ready_epoch.load(std::memory_order_acquire);
        if (auto claim = take_ready(min_class)) return claim;
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return std::nullopt;
        partition_ring::sleep_on(ring_.control_->ready_epoch, ring_.control_->ready_sleepers, epoch, deadline - now);
    }
}

// PROVING (held by this process, |claim|'s generation) -> |after|, or why not. Release ordering on success: our
// reads of the payload happen-before the next claimant's acquire (a writer overwriting it, or a prover taking it).
transition_status ring_prover::leave_proving(const proving_claim& claim, slot_word after) {
    if (claim.slot >= ring_.slot_count()) return transition_status::no_such_slot;
    const auto self = partition_ring::self_as_holder();
    ring_slot& s = ring_.slot(claim.slot);
    std::uint64_t expected = slot_word{slot_state::proving, self.pid, claim.generation}.pack();
    // Relaxed: pre-check, as in ring_writer::commit.
    const std::uint64_t observed = s.control.load(std::memory_order_relaxed);
    if (observed != expected) return ring_.diagnose(observed, slot_state::proving, claim.generation, self.pid);
    s.state_since_ms.store(realtime_ms(), std::memory_order_relaxed);
    s.holder_start_time.store(0, std::memory_order_relaxed);
    if (!s.control.compare_exchange_strong(expected, after.pack(), std::memory_order_release,
                                           std::memory_order_relaxed)) {
        return ring_.diagnose(expected, slot_state::proving, claim.generation, self.pid);
    }
    return transition_status::ok;
}

transition_status ring_prover::release(const proving_claim& claim) {
    const auto st = leave_proving(claim, slot_word{slot_state::free, 0, claim.generation});
    if (st != transition_status::ok) return st;
    ring_.control_->releases.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic
    ring_.wake_writers();
    return transition_status::ok;
}

// The metadata stays as committed; the next prover's acquire take sees it, as after a commit.
transition_status ring_prover::hand_back(const proving_claim& claim) {
    const auto st = leave_proving(claim, slot_word{slot_state::ready, 0, claim.generation + 1});
    if (st != transition_status::ok) return st;
    ring_.wake_provers();
    return transition_status::ok;
}

}  // namespace cuzk::ipc
