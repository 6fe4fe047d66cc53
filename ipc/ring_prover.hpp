// The prover's side of the partition ring (gpud): wait for a READY slot, take the oldest, read its witness,
// then release it FREE (or hand it back READY, unproved, when stopping). Owns its mapping of the ring; see partition_ring.hpp for the state machine.
#pragma once

#include "ipc/partition_ring.hpp"

#include <chrono>
#include <limits>
#include <cstdint>
#include <optional>
#include <span>

namespace cuzk::ipc {

// What a prover holds between take_ready and release.
struct proving_claim {
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
    std::uint64_t job_id = 0;
    std::uint32_t partition = 0;
    std::uint32_t payload_format = 0;
    std::uint64_t commit_seq = 0;
    std::span<const std::byte> payload;  // payload_bytes long, as committed
};

class ring_prover {
public:
    explicit ring_prover(partition_ring ring) : ring_(std::move(ring)) {}

    // std::nullopt: nothing READY (after |wait| for the waiting overload, which sleeps on the READY futex).
    // |min_class|: only slots committed with that priority class or a higher one (priority_class_of; a gpud
    // worker kept for WinningPoSt takes class 2 and up).
    std::optional<proving_claim> take_ready(std::int32_t min_class = std::numeric_limits<std::int32_t>::min());
    std::optional<proving_claim> take_ready(std::chrono::nanoseconds wait,
                                            std::int32_t min_class = std::numeric_limits<std::int32_t>::min());
    [[nodiscard]] transition_status release(const proving_claim& claim);
    // PROVING -> READY by its holder, generation + 1 (a new tenancy, as reclaim_dead gives a dead holder's slot):
    // a gpud stopping gracefully hands an unproved witness back at a step boundary, so the next prover takes it
    // as it is and nothing is synthesized again. The commit sequence stays, so it keeps its place in the order.
    [[nodiscard]] transition_status hand_back(const proving_claim& claim);

    // Cancel: frees the READY slots of |job_id| unproved. Returns how many were freed.
    std::size_t discard_ready(std::uint64_t job_id) { return ring_.discard_ready_of(job_id); }

    partition_ring& ring() noexcept { return ring_; }
    const partition_ring& ring() const noexcept { return ring_; }

private:
    transition_status leave_proving(const proving_claim& claim, slot_word after);
    partition_ring ring_;
};

}  // namespace cuzk::ipc
