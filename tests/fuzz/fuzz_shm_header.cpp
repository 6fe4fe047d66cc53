// The shared-memory segment headers (ipc/shm_header.cpp, validate_header: what every process checks before it
// touches a ring or CUDA lock segment it attaches), then the partition ring's own check of its layout when a
// stage opens it (ipc/partition_ring.cpp, open: the slot geometry against the header), over a file-backed
// segment holding the input (a memory file), and the ring's status read of every slot (snapshot).
// Invariants: only ipc::shm_error escapes; a header that validates has the magic, layout version and header
// size asked for and declares no more bytes than are mapped; an opened ring's slot table lies inside the
// mapping, and (CUZK_FUZZ_CHECK_RING_SLOTS) so does every slot's payload.
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "ipc/cuda_lock.hpp"
#include "ipc/partition_ring.hpp"
#include "ipc/shm_error.hpp"
#include "ipc/shm_header.hpp"
#include "support/invariant.hpp"
#include "support/memory_file.hpp"

// partition_ring::open checks the slots' payload offsets (docs/fuzzing.md, Findings): the payload invariant is on
// (-DCUZK_FUZZ_CHECK_RING_SLOTS=0 turns it off).
#ifndef CUZK_FUZZ_CHECK_RING_SLOTS
#define CUZK_FUZZ_CHECK_RING_SLOTS 1
#endif

namespace {

using namespace cuzk;

void check_header(const std::byte* where, std::size_t size, std::uint64_t magic, std::uint32_t layout_version) {
    try {
        const ipc::shm_header& h = ipc::validate_header(where, size, magic, layout_version, "fuzz");
        fuzz::check(h.magic.load() == magic && h.layout_version == layout_version &&
                        h.header_bytes == sizeof(ipc::shm_header) && h.segment_bytes <= size,
                    "validate_header took a header it should refuse");
    } catch (const ipc::shm_error&) {
    }
}

void check_ring(const std::uint8_t* data, std::size_t size) {
    // The segment is a memory file, named as /proc/self/fd/<n>: a file-backed segment's directory and name.
    static fuzz::memory_file file;
    file.assign(data, size);
    ipc::segment_location where;
    where.directory = file.path().parent_path();
    where.name = file.path().filename();
    try {
        const auto ring = ipc::partition_ring::open(where, std::chrono::milliseconds(0));
        const auto mapping = ring.mapping();
        const auto* control = reinterpret_cast<const ipc::ring_control*>(mapping.data() + sizeof(ipc::shm_header));
        fuzz::check(control->slots_offset <= mapping.size() &&
                        std::uint64_t{ring.slot_count()} <= (mapping.size() - control->slots_offset) / sizeof(ipc::ring_slot),
                    "an opened ring's slot table runs past its mapping");
        const auto slots = ring.snapshot();
        fuzz::check(slots.size() == ring.slot_count(), "snapshot does not list every slot");
        if (CUZK_FUZZ_CHECK_RING_SLOTS) {
            const auto* slot = reinterpret_cast<const ipc::ring_slot*>(mapping.data() + control->slots_offset);
            for (std::uint32_t i = 0; i < ring.slot_count(); ++i) {
                fuzz::check(slot[i].payload_offset <= mapping.size() &&
                                ring.slot_bytes() <= mapping.size() - slot[i].payload_offset,
                            "an opened ring's slot payload runs past its mapping");
            }
        }
    } catch (const ipc::shm_error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    spdlog::set_level(spdlog::level::off);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // The header as a mapping holds it: aligned to its cache line (the input's own bytes are not).
    auto* aligned = static_cast<std::byte*>(::operator new(size + 1, std::align_val_t{ipc::cache_line_bytes}));
    std::memcpy(aligned, data, size);
    check_header(aligned, size, ipc::partition_ring::magic, ipc::partition_ring::layout_version);
    check_header(aligned, size, ipc::cuda_lock::magic, ipc::cuda_lock::layout_version);
    ::operator delete(aligned, std::align_val_t{ipc::cache_line_bytes});
    check_ring(data, size);
    return 0;
}
