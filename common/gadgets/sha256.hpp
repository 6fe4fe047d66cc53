// SHA256 as a circuit: the compression function over UInt32 gadgets, and the padded hash built on
// it. Same construction as bellperson's gadgets/sha256.rs (message schedule additions and the
// deferred a/e additions share one MultiEq per block), so one compression from the IV over 512
// already-allocated input bits costs exactly 25,840 constraints, the figure Filecoin's circuits
// are sized by. Bits are in SHA256's order: a 512-bit block is its 64 bytes, each most significant
// bit first; a digest is 256 bits in the same order.
//
// A native compression is here too: it is the reference the gadget is tested against and what
// circuits use to compute their expected public inputs.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/gadgets/uint32.hpp"

namespace cuzk::gadgets {

inline constexpr std::array<uint32_t, 8> SHA256_IV = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

inline constexpr std::array<uint32_t, 64> SHA256_ROUND_CONSTANTS = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// Constraints of one sha256_compression from the IV (constant words) over 512 allocated bits,
// not counting the 512 booleanity constraints of those input bits.
inline constexpr uint64_t SHA256_COMPRESSION_CONSTRAINTS = 25840;

using sha256_state = std::array<uint32, 8>;

// The IV as constant words (free in constraints).
sha256_state sha256_iv();
// One compression of |block_bits| (512 bits) into |state|: returns the next chaining value.
sha256_state sha256_compression(cs::constraint_system& cs, std::span<const boolean> block_bits,
                                const sha256_state& state);
// The 256 bits of a state, in digest order.
std::vector<boolean> sha256_state_bits(const sha256_state& state);
// One compression from the IV, no padding: bellperson's sha256_block_no_padding.
std::vector<boolean> sha256_block_no_padding(cs::constraint_system& cs, std::span<const boolean> block_bits);
// SHA256 of a message of whole bytes (|message_bits|.size() % 8 == 0), padding with constant bits.
std::vector<boolean> sha256(cs::constraint_system& cs, std::span<const boolean> message_bits);

// Native compression: state = compress(state, block).
void sha256_compress_native(std::array<uint32_t, 8>& state, const uint8_t block[64]);
// Big-endian bytes of a state: the digest when the state is final.
std::array<uint8_t, 32> sha256_state_bytes(const std::array<uint32_t, 8>& state);

}  // namespace cuzk::gadgets
