#include "common/witness/compact_vector_serialization.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "common/witness/compact_vector_check.hpp"

namespace cuzk::witness {

namespace {

static_assert(std::is_trivially_copyable_v<ff::fr_t> && sizeof(ff::fr_t) == 32 && alignof(ff::fr_t) <= 8);

// "CZCMPVEC" read as a little-endian u64.
constexpr std::uint64_t magic = [] {
    const char tag[] = "CZCMPVEC";
    std::uint64_t m = 0;
    for (int i = 7; i >= 0; --i) m = (m << 8) | std::uint8_t(tag[i]);
    return m;
}();

struct header {
    std::uint64_t magic;
    std::uint32_t version;
    std::uint32_t zero;
    std::uint64_t size;
    std::uint64_t full;
};
static_assert(sizeof(header) == compact_header_bytes);

std::uint64_t blocks_of(std::uint64_t size) { return size / compact_block + (size % compact_block != 0); }

// full_mask, bit_value and full_before with its padding.
std::uint64_t block_bytes(std::uint64_t blocks) { return 16 * blocks + (4 * blocks + 7) / 8 * 8; }

// Large copies in 16 MiB pieces on TBB's threads: a 32 GiB WindowPoSt witness is 4 GB written into fresh ring
// pages, where one thread spends most of its time on the kernel faulting them in (12 s on the 2-core dev VM).
std::byte* put(std::byte* at, const void* src, std::size_t bytes) {
    constexpr std::size_t piece = std::size_t(16) << 20;
    if (bytes >= 4 * piece) {
        const auto* from = static_cast<const std::byte*>(src);
        tbb::parallel_for(std::size_t(0), (bytes + piece - 1) / piece, [&](std::size_t i) {
            const std::size_t offset = i * piece;
            std::memcpy(at + offset, from + offset, std::min(piece, bytes - offset));
        });
    } else if (bytes) {
        std::memcpy(at, src, bytes);
    }
    return at + bytes;
}

[[noreturn]] void refuse(const std::string& what) { throw std::runtime_error("compact vector: " + what); }

}  // namespace

std::uint64_t serialized_bytes(const compact_vector_view& v) { return serialized_bytes(v.size, v.full.size()); }

std::uint64_t serialized_bytes(std::uint64_t size, std::uint64_t full) {
    return compact_header_bytes + block_bytes(blocks_of(size)) + 32 * full;
}

std::uint64_t write(std::span<std::byte> out, const compact_vector_view& v) {
    const std::uint64_t blocks = blocks_of(v.size);
    if (v.full_mask.size() != blocks || v.bit_value.size() != blocks || v.full_before.size() != blocks)
        throw std::invalid_argument(fmt::format("compact vector of {} values with block arrays of {}, {} and {} "
                                                "entries, not {}",
                                                v.size, v.full_mask.size(), v.bit_value.size(),
                                                v.full_before.size(), blocks));
    const std::uint64_t need = serialized_bytes(v);
    if (need > out.size())
        throw std::length_error(fmt::format("compact vector of {} values ({} full) needs {} bytes, the buffer holds {}",
                                            v.size, v.full.size(), need, out.size()));
    const header h{magic, compact_layout_version, 0, v.size, v.full.size()};
    std::byte* at = put(out.data(), &h, sizeof h);
    at = put(at, v.full_mask.data(), v.full_mask.size_bytes());
    at = put(at, v.bit_value.data(), v.bit_value.size_bytes());
    at = put(at, v.full_before.data(), v.full_before.size_bytes());
    if (blocks % 2) {
        std::memset(at, 0, 4);
        at += 4;
    }
    at = put(at, v.full.data(), v.full.size_bytes());
    return std::uint64_t(at - out.data());
}

compact_vector_view read(std::span<const std::byte> bytes) {
    if (bytes.size() < compact_header_bytes)
        refuse(fmt::format("{} bytes are shorter than the {}-byte header", bytes.size(), compact_header_bytes));
    if (reinterpret_cast<std::uintptr_t>(bytes.data()) % 8 != 0)
        refuse("the bytes do not start 8-byte aligned, the arrays would be misaligned");
    header h;
    std::memcpy(&h, bytes.data(), sizeof h);
    if (h.magic != magic) refuse("the bytes do not start with a compact vector (magic)");
    if (h.version != compact_layout_version)
        refuse(fmt::format("layout version {}, this build reads {}: run the same build on every stage", h.version,
                           compact_layout_version));
    if (h.zero != 0) refuse(fmt::format("header word at offset 12 is {}, not zero", h.zero));
    if (h.full > h.size) refuse(fmt::format("{} full values among {} values", h.full, h.size));
    // In 128 bits: a corrupt header may claim up to 2^64 values, and the need is compared before any use.
    const std::uint64_t blocks = blocks_of(h.size);
    const unsigned __int128 need =
        compact_header_bytes + (unsigned __int128)block_bytes(blocks) + 32 * (unsigned __int128)h.full;
    if (need > bytes.size())
        refuse(fmt::format("{} values ({} full) need {} bytes, the buffer holds {}", h.size, h.full,
                           need >> 64 ? std::string("over 2^64") : std::to_string(std::uint64_t(need)),
                           bytes.size()));
    const std::byte* at = bytes.data() + compact_header_bytes;
    compact_vector_view v;
    v.size = h.size;
    v.full_mask = {reinterpret_cast<const std::uint64_t*>(at), blocks};
    at += 8 * blocks;
    v.bit_value = {reinterpret_cast<const std::uint64_t*>(at), blocks};
    at += 8 * blocks;
    v.full_before = {reinterpret_cast<const std::uint32_t*>(at), blocks};
    at += 4 * blocks;
    if (blocks % 2) {
        std::uint32_t pad;
        std::memcpy(&pad, at, 4);
        if (pad != 0) refuse(fmt::format("padding after full_before is {:#x}, not zero", pad));
        at += 4;
    }
    v.full = {reinterpret_cast<const ff::fr_t*>(at), h.full};
    check_consistent(v);
    return v;
}

}  // namespace cuzk::witness
