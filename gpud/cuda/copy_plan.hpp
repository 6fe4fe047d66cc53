// Host arrays gathered into as few host-to-device copies as their layout allows, into one device buffer: a ring
// slot holds a partition's inputs and its compact aux arrays back to back (daemon/partition_witness.hpp), so
// r1cs_witness::upload copies them in one or two copies instead of five (each copy costs a few microseconds of
// setup; page-locked, the link's rate either way).
//
// Arrays taken in order share a copy while each starts at or after the end of the one before, at most |max_gap|
// bytes further (the gap's bytes are copied too: a header or padding between them), and at an offset from the
// copy's first byte that is a multiple of its alignment on the device (every copy lands at a multiple of
// copy_alignment, cudaMalloc's). A ring slot's fr values after 2 u64 and 1 u32 array per 64 aux values start
// 8 bytes off a 16-byte boundary for about half the block counts: then they take a copy of their own.
// Host-only and header-only (tests/test_device_copy_plan.cpp runs it on every machine).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace cuzk::cuda {

inline constexpr std::size_t copy_alignment = 256;

struct host_array {
    const void* host = nullptr;
    std::size_t bytes = 0;
    std::size_t align = 1;  // on the device: a power of two, at most copy_alignment
};

struct copy_plan {
    struct copy {
        const std::byte* host = nullptr;
        std::size_t bytes = 0;
        std::size_t device_offset = 0;  // a multiple of copy_alignment
    };
    std::vector<copy> copies;
    std::vector<std::size_t> offset;  // per array, its device offset (0 for an empty one, which is not copied)
    std::size_t device_bytes = 0;     // the device buffer the copies need
    std::size_t copied_bytes = 0;     // the copies' bytes, gaps included
};

inline copy_plan plan_copies(std::span<const host_array> arrays, std::size_t max_gap = 64) {
    copy_plan p;
    p.offset.assign(arrays.size(), 0);
    std::uintptr_t first = 0, end = 0;  // the open copy's host range
    std::size_t at = 0;                 // its device offset
    bool open = false;
    auto close = [&] {
        if (!open) return;
        p.copies.push_back({reinterpret_cast<const std::byte*>(first), std::size_t(end - first), at});
        p.copied_bytes += end - first;
        p.device_bytes = at + (end - first);
        open = false;
    };
    for (std::size_t i = 0; i < arrays.size(); ++i) {
        const host_array& a = arrays[i];
        if (a.align == 0 || !std::has_single_bit(a.align) || a.align > copy_alignment)
            throw std::invalid_argument("copy plan: an alignment of " + std::to_string(a.align) +
                                        " bytes (a power of two up to 256)");
        if (a.bytes == 0) continue;
        const auto h = reinterpret_cast<std::uintptr_t>(a.host);
        const bool joins = open && h >= end && h - end <= max_gap && (h - first) % a.align == 0;
        if (!joins) {
            close();
            at = (p.device_bytes + copy_alignment - 1) / copy_alignment * copy_alignment;
            first = end = h;
            open = true;
        }
        p.offset[i] = at + (h - first);
        end = h + a.bytes;
    }
    close();
    return p;
}

}  // namespace cuzk::cuda
