// The writer's side of the partition ring (synthd): claim a FREE slot, write a witness into it, then commit
// it READY for a prover or abort it back to FREE. Owns its mapping of the ring; see partition_ring.hpp for
// the state machine.
#pragma once

#include "ipc/partition_ring.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

namespace cuzk::ipc {

// What a writer holds between claim_for_write and commit/abort.
struct write_claim {
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
    std::span<std::byte> payload;  // slot_bytes long
};

class ring_writer {
public:
    explicit ring_writer(partition_ring ring) : ring_(std::move(ring)) {}

    // std::nullopt: FULL. The waiting overload sleeps (futex, no spinning) until a slot frees or |wait| passes.
    // |keep_free|: the claim is taken only if that many slots stay FREE after it, so that work of a higher
    // priority (a WinningPoSt) finds a slot while lower-priority witnesses wait. Exact among the threads of
    // this writer (claims are serialized in the process; one synthd writes a ring, and other processes only
    // free slots).
    std::optional<write_claim> claim_for_write(std::uint64_t job_id, std::uint32_t partition,
                                               std::uint32_t keep_free = 0);
    std::optional<write_claim> claim_for_write(std::uint64_t job_id, std::uint32_t partition,
                                               std::chrono::nanoseconds wait, std::uint32_t keep_free = 0);
    // Throws std::length_error when |payload_bytes| > slot_bytes (nothing changes). |priority|: the job's
    // (assemblerd's scale: NORMAL 0, a step of 100 per API priority): provers take READY slots of a higher
    // priority first, then in commit order (take_order_of), so a WinningPoSt partition waits for no PoRep one.
    [[nodiscard]] transition_status commit(const write_claim& claim, std::uint64_t payload_bytes,
                                           std::uint32_t payload_format = 0, std::int32_t priority = 0);
    [[nodiscard]] transition_status abort(const write_claim& claim);

    // Cancel: frees the READY slots of |job_id| (also while no prover runs). Returns how many were freed.
    std::size_t discard_ready(std::uint64_t job_id) { return ring_.discard_ready_of(job_id); }

    partition_ring& ring() noexcept { return ring_; }
    const partition_ring& ring() const noexcept { return ring_; }

private:
    partition_ring ring_;
    std::unique_ptr<std::mutex> claim_mutex_ = std::make_unique<std::mutex>();  // a pointer: the writer moves
};

}  // namespace cuzk::ipc
