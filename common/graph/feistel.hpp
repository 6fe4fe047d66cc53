// The Feistel permutation behind the StackedDRG expander (storage-proofs-core crypto/feistel.rs):
// an index in [0, n) is split into two halves of b bits (4^b >= n, b >= 1), run through 3 rounds
// with the round function F(R, K) = first 8 bytes (big-endian) of BLAKE2b-512(R as u64 BE || K as
// u64 BE), masked to b bits, and re-encrypted until it lands below n (cycle walking).
#pragma once

#include <array>
#include <cstdint>

namespace cuzk::graph {

using feistel_keys = std::array<uint64_t, 4>;  // only the first 3 are used (3 rounds)

struct feistel_params {
    uint64_t left_mask;
    uint64_t right_mask;
    unsigned half_bits;
};

feistel_params feistel_precompute(uint64_t num_elements);

uint64_t feistel_permute(uint64_t num_elements, uint64_t index, const feistel_keys& keys, const feistel_params& p);
uint64_t feistel_invert(uint64_t num_elements, uint64_t index, const feistel_keys& keys, const feistel_params& p);

// One pass of the network (no cycle walking), and its inverse.
uint64_t feistel_encode(uint64_t index, const feistel_keys& keys, const feistel_params& p);
uint64_t feistel_decode(uint64_t index, const feistel_keys& keys, const feistel_params& p);

}  // namespace cuzk::graph
