// A compact_vector back into field elements on the CPU: one value by index, or the whole vector (the CPU
// backend's witness; gpud/cuda/r1cs_* does the same on the device). The view must be consistent, as the
// builder makes it and compact_vector_serialization's read checks it.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "common/witness/compact_vector.hpp"

namespace cuzk::witness {

// Value |i| < |v|.size, in O(1): a popcount of the full values before it in its block.
inline ff::fr_t value_at(const compact_vector_view& v, std::uint64_t i) {
    const std::uint64_t block = i / compact_block;
    const unsigned k = unsigned(i % compact_block);
    const std::uint64_t mask = v.full_mask[block];
    if ((mask >> k) & 1) {
        const std::uint64_t below = mask & ((std::uint64_t(1) << k) - 1);
        return v.full[std::uint64_t(v.full_before[block]) + unsigned(std::popcount(below))];
    }
    return (v.bit_value[block] >> k) & 1 ? ff::fr_t::one() : ff::fr_t::zero();
}

// Writes all |v|.size values into |out|, which must hold exactly that many (std::invalid_argument naming both
// sizes otherwise). Blocks are split over TBB's threads from 2^16 values on.
void expand_into(const compact_vector_view& v, std::span<ff::fr_t> out);

std::vector<ff::fr_t> expand(const compact_vector_view& v);

}  // namespace cuzk::witness
