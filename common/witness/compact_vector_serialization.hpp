// A compact_vector laid out in bytes (a ring slot's witness), read back as a view without copying:
//
//   offset 0   u64 magic "CZCMPVEC"
//          8   u32 layout version (compact_layout_version), u32 zero
//          16  u64 size (values), u64 full count
//          32  u64 full_mask[blocks], u64 bit_value[blocks]   (blocks = ceil(size / 64))
//              u32 full_before[blocks], zero padding to a multiple of 8 bytes
//              fr  full[full count]   (32 bytes each, the in-memory Montgomery form: writer and reader are the
//                                      same build, checked by the version)
//
// Every array starts 8-byte aligned relative to the start, which itself must be 8-byte aligned for read().
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/witness/compact_vector.hpp"

namespace cuzk::witness {

inline constexpr std::uint32_t compact_layout_version = 1;
inline constexpr std::size_t compact_header_bytes = 32;

std::uint64_t serialized_bytes(const compact_vector_view& v);
// The same for a vector of |size| values of which |full| are full: known from a circuit's shape before its
// witness exists (every value a bit gives the fewest bytes a witness of that size can take).
std::uint64_t serialized_bytes(std::uint64_t size, std::uint64_t full);

// Writes |v| at the start of |out|; returns the bytes used (serialized_bytes(v)). Throws std::length_error
// naming both sizes when |out| is too small, std::invalid_argument when |v|'s block arrays do not have
// ceil(size / 64) entries.
std::uint64_t write(std::span<std::byte> out, const compact_vector_view& v);

// The vector written at the start of |bytes| (which may go on beyond it: serialized_bytes of the result says
// where it ends). Everything is checked before the view is returned: the header, the counts against the
// length of |bytes|, zero padding, and the view's invariants (compact_vector_check.hpp). Throws
// std::runtime_error naming what is inconsistent. The view points into |bytes|.
compact_vector_view read(std::span<const std::byte> bytes);

}  // namespace cuzk::witness
