// The shared-memory layout of a partition ring: plain structs, no pointers (every position is an offset
// from the segment base, valid in every process whatever address the segment is mapped at).
//
//   0                shm_header (magic "CUZKRING")
//   128              ring_control (constants, counters, the two futex words)
//   slots_offset     ring_slot[slot_count], one cache line each
//   payloads_offset  slot payloads, slot_stride bytes apart (slot_bytes rounded up to 4 KiB, so each
//                    payload is page aligned for pinning / DMA)
//
// A slot's state, holder pid and generation live together in one 64-bit word, so every transition is a
// single compare-and-swap that checks all three (no ABA: the generation changes with every tenancy):
//   bits 0-7 state, bits 8-31 holder pid (Linux pids are below 2^22), bits 32-63 generation.
#pragma once

#include "ipc/shm_header.hpp"

#include <sys/types.h>

#include <atomic>
#include <cstdint>

namespace cuzk::ipc {

enum class slot_state : std::uint8_t {
    free = 0,     // nobody holds it; claim_for_write may take it
    writing = 1,  // a synthesizer fills the payload
    ready = 2,    // the witness is complete; waits for a prover
    proving = 3,  // a prover reads the payload
};

struct slot_word {
    slot_state state = slot_state::free;
    pid_t holder = 0;  // 0 when FREE or READY
    std::uint32_t generation = 0;

    static constexpr std::uint64_t pid_limit = 1u << 24;

    constexpr std::uint64_t pack() const noexcept {
        return (std::uint64_t{generation} << 32) | ((static_cast<std::uint64_t>(holder) & (pid_limit - 1)) << 8) |
               static_cast<std::uint64_t>(state);
    }
    static constexpr slot_word unpack(std::uint64_t word) noexcept {
        return {static_cast<slot_state>(word & 0xff), static_cast<pid_t>((word >> 8) & (pid_limit - 1)),
                static_cast<std::uint32_t>(word >> 32)};
    }
    friend constexpr bool operator==(const slot_word&, const slot_word&) = default;
};

// One slot's header. |control| orders everything: the metadata fields are atomics only so that readers of
// a slot they do not hold (status, reclaim, FIFO scan) never race formally; they are stored relaxed by the
// holder and published by the release CAS on |control|.
struct ring_slot {
    alignas(cache_line_bytes) std::atomic<std::uint64_t> control;  // slot_word
    std::atomic<std::uint64_t> holder_start_time;  // start time of the holder; 0 = unknown (see reclaim_dead)
    std::atomic<std::uint64_t> job_id;
    std::atomic<std::uint32_t> partition;
    std::atomic<std::uint32_t> payload_format;  // the writer's tag for the payload's encoding
    std::atomic<std::uint64_t> payload_bytes;   // bytes of the payload in use (<= slot_bytes)
    std::atomic<std::uint64_t> commit_seq;      // take_ready's order, lowest first: take_order_of(priority, seq)
    std::atomic<std::uint64_t> state_since_ms;  // CLOCK_REALTIME ms of the last transition (status, stalls)
    std::uint64_t payload_offset;               // from the segment base; constant after creation
};
static_assert(sizeof(ring_slot) == cache_line_bytes);

// The order provers take READY slots in: a priority class in the top byte (the higher the priority, the lower
// the key), then the ring-wide commit sequence (FIFO within a class; 2^56 commits never wrap). A priority p
// (assemblerd's scale, a step of 100 per API level) falls in class p / 100, clamped to -128..127.
constexpr std::uint64_t take_order_of(std::int32_t priority, std::uint64_t commit_seq) noexcept {
    std::int32_t level = priority / 100;
    level = level < -128 ? -128 : level > 127 ? 127 : level;
    const auto rank = static_cast<std::uint64_t>(127 - level);  // 0 for the highest
    return (rank << 56) | (commit_seq & ((std::uint64_t(1) << 56) - 1));
}

// The priority class a READY slot was committed with (the inverse of take_order_of's top byte): the CUDA lock
// orders its waiters by it.
constexpr std::int32_t priority_class_of(std::uint64_t take_order) noexcept {
    return 127 - static_cast<std::int32_t>(take_order >> 56);
}

struct ring_control {
    // Constant after creation.
    alignas(cache_line_bytes) std::uint64_t slots_offset;
    std::uint64_t payloads_offset;
    std::uint64_t slot_stride;

    // Writers' line: commit order and where the next claim starts looking.
    alignas(cache_line_bytes) std::atomic<std::uint64_t> next_commit_seq;
    std::atomic<std::uint32_t> claim_hint;

    // Futex words, one per line: bumped after a slot becomes READY (provers sleep on it) or FREE (writers
    // sleep on it while the ring is full). Each comes with the number of threads sleeping on it, so that a
    // transition nobody waits for costs no system call (a sleeper that died leaves it too high: harmless).
    alignas(cache_line_bytes) std::atomic<std::uint32_t> ready_epoch;
    std::atomic<std::uint32_t> ready_sleepers;
    alignas(cache_line_bytes) std::atomic<std::uint32_t> free_epoch;
    std::atomic<std::uint32_t> free_sleepers;

    // Counters for status and metrics; relaxed increments, read without a snapshot guarantee.
    alignas(cache_line_bytes) std::atomic<std::uint64_t> commits;
    std::atomic<std::uint64_t> releases;
    std::atomic<std::uint64_t> aborts;
    std::atomic<std::uint64_t> full_claims;  // claim_for_write found no FREE slot (backpressure)
    std::atomic<std::uint64_t> reclaimed_writing;
    std::atomic<std::uint64_t> reclaimed_proving;
    std::atomic<std::uint64_t> discarded;  // READY slots freed by discard_ready (cancel)
};

inline constexpr std::uint64_t ring_payload_alignment = 4096;

constexpr std::uint64_t round_up(std::uint64_t value, std::uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

struct ring_geometry {
    std::uint64_t slots_offset;
    std::uint64_t payloads_offset;
    std::uint64_t slot_stride;
    std::uint64_t segment_bytes;
};

constexpr ring_geometry ring_geometry_for(std::uint32_t slot_count, std::uint64_t slot_bytes) {
    ring_geometry g{};
    g.slots_offset = round_up(sizeof(shm_header) + sizeof(ring_control), cache_line_bytes);
    g.payloads_offset = round_up(g.slots_offset + std::uint64_t{slot_count} * sizeof(ring_slot), ring_payload_alignment);
    g.slot_stride = round_up(slot_bytes, ring_payload_alignment);
    g.segment_bytes = g.payloads_offset + std::uint64_t{slot_count} * g.slot_stride;
    return g;
}

}  // namespace cuzk::ipc
