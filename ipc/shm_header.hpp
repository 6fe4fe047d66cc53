// The versioned header at offset 0 of every shared-memory segment of the pipeline (ring, CUDA lock).
// A process that attaches checks magic, layout version and sizes before it touches anything else, so a
// segment left by an older build, or sized for another configuration, is refused with a clear message
// instead of being misread.
//
// Initialisation protocol: the creator fills every field, then stores |magic| with release. A nonzero
// magic read with acquire therefore means "every other field is written"; zero means "still being
// created" (or its creator died doing so).
#pragma once

#include "ipc/process_identity.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuzk::ipc {

inline constexpr std::size_t cache_line_bytes = 64;

// Eight ASCII characters read as a little-endian u64 (so `xxd` of the segment shows the tag).
consteval std::uint64_t make_magic(const char (&tag)[9]) {
    std::uint64_t value = 0;
    for (int i = 7; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(tag[i]);
    return value;
}

struct shm_header {
    // --- written once by the creator, before |magic| is published ---
    alignas(cache_line_bytes) std::atomic<std::uint64_t> magic;  // identifies the segment kind; 0 until published
    std::uint32_t layout_version;  // bumped on any change of the layout after this header
    std::uint32_t header_bytes;    // sizeof(shm_header) of the creator
    std::uint64_t segment_bytes;   // total mapped size
    std::uint32_t slot_count;      // ring: slots; CUDA lock: waiter table capacity
    std::uint32_t reserved;
    std::uint64_t slot_bytes;      // ring: payload bytes per slot; CUDA lock: 0
    std::uint64_t created_ms;      // CLOCK_REALTIME ms

    // --- the creating process, written before |magic| (quoted when a segment is found unpublished). No
    // liveness is kept here: whoever holds a ring slot or the CUDA lock's turn is recorded with it, and is
    // judged by pid and start time when that slot or turn is contended ---
    alignas(cache_line_bytes) std::atomic<std::int32_t> owner_pid;
    std::atomic<std::uint64_t> owner_start_time;  // clock ticks since boot, see process_identity

    // --- the service the segment belongs to: the canonical path of its runtime directory, NUL-padded, up to
    // service_name_bytes (empty: made outside a service, by a tool or a test). Written by the creator before
    // |magic|; rewritten only when a service takes over a segment whose service is gone (daemon/
    // service_segment.hpp). Atomic words, so that services starting at once never race formally ---
    alignas(cache_line_bytes) std::atomic<std::uint64_t> service_words[16];
};
inline constexpr std::size_t service_name_bytes = 8 * 16;
static_assert(sizeof(shm_header) == 4 * cache_line_bytes);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free && std::atomic<std::int32_t>::is_always_lock_free,
              "lock-free atomics are address-free, the only kind that works across processes");

struct header_layout {
    std::uint64_t magic = 0;
    std::uint32_t layout_version = 0;
    std::uint64_t segment_bytes = 0;
    std::uint32_t slot_count = 0;
    std::uint64_t slot_bytes = 0;
    std::string_view service;  // the creating service (see shm_header); at most service_name_bytes
};

// The service recorded in |header| (empty when none).
std::string service_of(const shm_header& header);
// Records |service| in |header| (truncated to service_name_bytes: service names are compared whole, so a longer
// one must be reduced by the caller; see daemon/service_segment.hpp).
void set_service(shm_header& header, std::string_view service) noexcept;

// Constructs the header in zeroed memory at |where|, naming the calling process as creator, and publishes it
// (magic last). Call it after everything behind the header is initialised: the magic is the signal.
shm_header& publish_header(void* where, const header_layout& layout);

// Checks magic, version, header size and that |mapped_bytes| covers segment_bytes; throws shm_error
// (incompatible / not_initialized) naming |segment| and both values otherwise.
const shm_header& validate_header(const void* where, std::size_t mapped_bytes, std::uint64_t magic,
                                  std::uint32_t layout_version, std::string_view segment);

inline process_identity owner_of(const shm_header& header) noexcept {
    // Relaxed: written once before the release store of |magic|, which a reader has acquired.
    return {header.owner_pid.load(std::memory_order_relaxed), header.owner_start_time.load(std::memory_order_relaxed)};
}

}  // namespace cuzk::ipc
