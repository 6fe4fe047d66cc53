// Making the vanilla proof of one sector, as filecoin-ffi's GenerateSingleVanillaProof does from a sealed
// sector's tree R (the replica's leaves): its comm_r, comm_c, comm_r_last and one inclusion proof per
// challenged leaf. And a synthetic one of any size for timing, without a sealed sector: the openings of a sparse
// tree R (sparse_tree_r.hpp: random leaves and siblings, one root), a random comm_c and comm_r = Poseidon(comm_c,
// comm_r_last). It verifies, and its circuit is satisfied: a PoSt cannot tell it from a real sector's (it is of
// no sector on chain, so its proofs prove nothing about one).
#pragma once

#include <cstdint>
#include <random>
#include <span>

#include "common/porep/native_seal.hpp"
#include "common/post/sparse_tree_r.hpp"
#include "common/post/vanilla_proof.hpp"
#include "common/post/vanilla_shape.hpp"

namespace cuzk::post {

// |challenged_leaves| from challenges.hpp; |shape| gives the split of tree R's levels into base, sub, top.
fallback_sector_proof make_sector_proof(const porep::sealed_sector& sector, const vanilla_shape& shape,
                                        uint64_t sector_id, std::span<const uint64_t> challenged_leaves);

fallback_sector_proof make_synthetic_sector_proof(const vanilla_shape& shape, uint64_t sector_id,
                                                  std::span<const uint64_t> challenged_leaves, std::mt19937_64& rng);
// The same from a given sparse tree (built over at least |challenged_leaves|) and comm_c: the WindowPoSt and
// WinningPoSt proofs of one synthetic sector share them.
fallback_sector_proof make_synthetic_sector_proof(const vanilla_shape& shape, uint64_t sector_id,
                                                  std::span<const uint64_t> challenged_leaves,
                                                  const sparse_tree_r& tree, const ff::fr_t& comm_c);

}  // namespace cuzk::post
