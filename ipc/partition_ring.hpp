// The ring of partition slots between synthd (writer) and gpud (prover): one named shared-memory segment,
// slot count and size from the config, each slot holding one partition witness. The shared data is the plain
// structs of ring_layout.hpp; partition_ring maps them and does what any process may do (status, reclaim of
// dead holders). The slot transitions belong to the two roles, each a view over a mapped ring
// (ring_writer.hpp, ring_prover.hpp), so a daemon holds only the operations of its role:
//
//   ring_writer  claim_for_write  FREE -> WRITING     (generation + 1: a new tenancy)
//                commit           WRITING -> READY    (stamped with a ring-wide commit sequence)
//                abort            WRITING -> FREE
//   ring_prover  take_ready       READY -> PROVING    (the oldest commit first)
//                release          PROVING -> FREE
//                hand_back        PROVING -> READY    (generation + 1: a stopping prover returns it unproved)
//   both views   discard_ready    READY -> FREE for one job (cancel: whichever stage hears it frees them)
//   any process  reclaim_dead     WRITING -> FREE, PROVING -> READY, generation + 1, when the holder is dead
//
// Every transition is one CAS on the slot's control word (state, holder pid, generation), so an illegal
// transition, a stale claim (older generation) or a claim of another process is refused without side
// effects. FULL and "nothing ready" are return values (std::nullopt), not errors: they are the ring's
// backpressure. Thread-safe; any number of writers and provers in any number of processes.
#pragma once

#include "ipc/process_identity.hpp"
#include "ipc/ring_layout.hpp"
#include "ipc/shm_segment.hpp"

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::ipc {

struct ring_config {
    segment_location segment;
    std::uint32_t slot_count = 0;  // 1 .. 65536
    std::uint64_t slot_bytes = 0;  // payload capacity of one slot, 1 B .. 1 TiB
};

enum class transition_status {
    ok,
    no_such_slot,      // slot index out of range
    stale_generation,  // the slot moved on to another tenancy (e.g. it was reclaimed)
    wrong_state,       // the slot is not in the state this transition starts from
    not_holder,        // another process holds it
};
std::string_view to_string(transition_status status) noexcept;
std::string_view to_string(slot_state state) noexcept;

struct reclaimed_slot {
    std::uint32_t slot = 0;
    slot_state from = slot_state::free;  // writing (now FREE: the partition must be synthesized again) or
                                         // proving (now READY: the witness is intact, another prover takes it)
    std::uint32_t generation = 0;        // the new generation
    pid_t dead_holder = 0;
    std::uint64_t job_id = 0;
    std::uint32_t partition = 0;
};

struct slot_snapshot {
    std::uint32_t slot = 0;
    slot_state state = slot_state::free;
    std::uint32_t generation = 0;
    pid_t holder = 0;
    std::uint64_t job_id = 0;
    std::uint32_t partition = 0;
    std::uint64_t payload_bytes = 0;
    std::uint64_t commit_seq = 0;
    std::uint64_t state_since_ms = 0;
};

struct ring_counters {
    std::uint64_t commits = 0, releases = 0, aborts = 0, full_claims = 0;
    std::uint64_t reclaimed_writing = 0, reclaimed_proving = 0, discarded = 0;
};

class partition_ring {
public:
    static constexpr std::uint64_t magic = make_magic("CUZKRING");
    static constexpr std::uint32_t layout_version = 3;  // 3: shm_header names its service

    // Throws shm_error (already_exists, no_space with size and directory, invalid_argument, ...).
    static partition_ring create(const ring_config& config);
    // Slot count and size come from the segment's header. Throws shm_error.
    static partition_ring open(const segment_location& where,
                               std::chrono::milliseconds creation_wait = std::chrono::seconds(10));
    // Opens the ring if it exists (a restarted stage finds the slots as it left them), creates it otherwise;
    // an existing ring with another slot count or size is refused (shm_errc::incompatible).
    static partition_ring open_or_create(const ring_config& config);
    static bool remove(const segment_location& where);

    std::uint32_t slot_count() const noexcept { return header_->slot_count; }
    std::uint64_t slot_bytes() const noexcept { return header_->slot_bytes; }
    const segment_location& location() const noexcept { return segment_.location(); }
    const shm_header& header() const noexcept { return *header_; }
    // The service the ring belongs to (shm_header::service_words), and its takeover by another service once
    // that one is gone (daemon/service_segment.hpp decides).
    std::string service() const { return service_of(*header_); }
    void take_over(std::string_view service) noexcept { set_service(*header_, service); }
    // The whole mapping (for pinning it once with cudaHostRegister).
    std::span<std::byte> mapping() const noexcept { return {segment_.data(), segment_.size()}; }

    // Returns slots held (WRITING / PROVING) by processes that no longer exist to FREE / READY. Safe to
    // call from any process at any time (a daemon calls it when it opens the ring, gpud every second).
    std::vector<reclaimed_slot> reclaim_dead();

    std::vector<slot_snapshot> snapshot() const;
    ring_counters counters() const;

private:
    friend class ring_writer;
    friend class ring_prover;

    explicit partition_ring(shm_segment segment);

    // The calling process as a slot holder; throws when its pid does not fit the control word.
    static process_identity self_as_holder();

    ring_slot& slot(std::uint32_t index) const noexcept { return slots_[index]; }
    std::byte* payload_of(const ring_slot& s) const noexcept { return segment_.data() + s.payload_offset; }
    transition_status diagnose(std::uint64_t observed, slot_state expected_state, std::uint32_t generation,
                               pid_t holder) const noexcept;
    // Frees the READY slots of |job_id|; WRITING/PROVING slots stay with their holders, who abort or release
    // them. Returns how many were freed.
    std::size_t discard_ready_of(std::uint64_t job_id);

    static void wake(std::atomic<std::uint32_t>& epoch, std::atomic<std::uint32_t>& sleepers) noexcept;
    static void sleep_on(std::atomic<std::uint32_t>& epoch, std::atomic<std::uint32_t>& sleepers, std::uint32_t seen,
                         std::chrono::nanoseconds timeout) noexcept;
    void wake_provers() noexcept { wake(control_->ready_epoch, control_->ready_sleepers); }
    void wake_writers() noexcept { wake(control_->free_epoch, control_->free_sleepers); }

    shm_segment segment_;
    shm_header* header_ = nullptr;
    ring_control* control_ = nullptr;
    ring_slot* slots_ = nullptr;
};

}  // namespace cuzk::ipc
