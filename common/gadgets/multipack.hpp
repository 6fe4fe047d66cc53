// Multipacking: exposing a bit string as few public inputs. Bits are cut into chunks of
// CAPACITY = 254 (the most that always fit below r); chunk j becomes input j with bit i of the chunk
// weighted 2^i (little-endian within each field element), one constraint per chunk. Same layout as
// bellperson's multipack::pack_into_inputs / compute_multipacking, so a verifier computes the
// inputs from the native bits with compute_multipacking.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/gadgets/boolean.hpp"

namespace cuzk::gadgets {

inline constexpr size_t MULTIPACK_CHUNK_BITS = 254;

// Allocates ceil(bits / 254) public inputs and enforces (sum_i 2^i bit_i) * 1 = input per chunk.
void pack_into_inputs(cs::constraint_system& cs, std::span<const boolean> bits);
// The field elements pack_into_inputs assigns for these bit values.
std::vector<ff::fr_t> compute_multipacking(const std::vector<bool>& bits);
// Bits of bytes, most significant bit of each byte first (SHA256 order).
std::vector<bool> bytes_to_bits(std::span<const uint8_t> bytes);
// Bits of bytes, least significant bit of each byte first.
std::vector<bool> bytes_to_bits_le(std::span<const uint8_t> bytes);

}  // namespace cuzk::gadgets
