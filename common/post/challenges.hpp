// The leaves a fallback PoSt challenges (storage-proofs-post fallback vanilla.rs generate_leaf_challenge_inner,
// utils.rs get_challenge_index):
//   leaf = LE u64 of SHA256(randomness || sector_id u64 LE || challenge_index u64 LE)[0..8], mod the leaves
// where challenge_index is, for API version 1.2, the challenge's number n within its sector, and before it
// sector_index * challenges_per_sector + n, sector_index counting the sectors of all partitions (k * sector_count
// + position in partition k). The randomness is used as its 32 bytes; the sector id is the sector number.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/graph/api_version.hpp"
#include "common/post/registered_post_proof.hpp"

namespace cuzk::post {

using bytes32 = std::array<uint8_t, 32>;

uint64_t challenge_index(graph::api_version version, uint64_t sector_index, uint64_t challenges_per_sector,
                         uint64_t n);

uint64_t leaf_challenge(const bytes32& randomness, uint64_t sector_id, uint64_t challenge_index, uint64_t leaves);

// The |challenges_per_sector| leaves challenged in sector |sector_id| at position |sector_index| of a tree of
// |leaves| leaves (generate_leaf_challenges).
std::vector<uint64_t> sector_challenges(graph::api_version version, const bytes32& randomness, uint64_t sector_id,
                                        uint64_t sector_index, uint64_t challenges_per_sector, uint64_t leaves);

// The challenge_count leaves a vanilla proof of sector |sector_id| opens (filecoin-proofs post_util.rs
// generate_fallback_sector_challenges): Window 10, Winning 66, sector_index as above (0 for Winning's one sector).
std::vector<uint64_t> vanilla_challenges(const registered_post_proof& proof, const bytes32& randomness,
                                         uint64_t sector_id, uint64_t sector_index);

// As above with an API version other than the registered proof's own.
std::vector<uint64_t> vanilla_challenges(const registered_post_proof& proof, graph::api_version version,
                                         const bytes32& randomness, uint64_t sector_id, uint64_t sector_index);

// PoSt randomness must be a canonical field element (filecoin-proofs as_safe_commitment): throws
// cuzk::input_error naming |what| otherwise.
void check_randomness(const bytes32& randomness, std::string_view what);

}  // namespace cuzk::post
