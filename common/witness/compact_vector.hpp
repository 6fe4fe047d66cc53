// A vector of field elements stored compactly: nearly every value of a Filecoin circuit's witness is 0 or 1
// (bits of SHA256 words, path bits, ...), so each value is one of
//   a bit  - 0 or 1 (Montgomery zero or one), one bit of bit_value;
//   full   - any other value, 32 bytes in |full|, in order.
// Per block of 64 values: full_mask (bit k set: value 64 * block + k is full), bit_value (the bit of a value
// that is not full; 0 for full ones), full_before (how many full values precede the block). So value i is found
// without a scan: on the CPU, and by one GPU thread per value (gpud/cuda/r1cs_*). At the 32 GiB PoRep shape
// (130 M aux values, 1.3 % full) that is ~2.5 bits per value plus 32 bytes per full one: ~95 MB instead of 4.2 GB.
// Bits of full_mask and bit_value at and beyond |size| are zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/ff/bls12_381.hpp"

namespace cuzk::witness {

inline constexpr std::size_t compact_block = 64;

struct compact_vector_view {
    std::uint64_t size = 0;                      // values
    std::span<const std::uint64_t> full_mask;    // ceil(size / 64) words
    std::span<const std::uint64_t> bit_value;    // ceil(size / 64) words
    std::span<const std::uint32_t> full_before;  // ceil(size / 64) counts
    std::span<const ff::fr_t> full;              // the full values, Montgomery form

    std::size_t blocks() const { return (size + compact_block - 1) / compact_block; }
};

}  // namespace cuzk::witness
