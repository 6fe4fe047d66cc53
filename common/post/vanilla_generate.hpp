// Making the vanilla proof of one sector, as filecoin-ffi's GenerateSingleVanillaProof does from a sealed
// sector's tree R (the replica's leaves): its comm_r, comm_c, comm_r_last and one inclusion proof per
// challenged leaf. And a synthetic one of any size for timing: the right shape and the right leaf positions,
// random leaves and siblings, so comm_r = Poseidon(comm_c, comm_r_last) holds but no path reaches its root.
// It is NOT a valid witness: the circuit built from it is unsatisfiable and no valid proof comes out.
#pragma once

#include <cstdint>
#include <random>
#include <span>

#include "common/porep/native_seal.hpp"
#include "common/post/vanilla_proof.hpp"
#include "common/post/vanilla_shape.hpp"

namespace cuzk::post {

// |challenged_leaves| from challenges.hpp; |shape| gives the split of tree R's levels into base, sub, top.
fallback_sector_proof make_sector_proof(const porep::sealed_sector& sector, const vanilla_shape& shape,
                                        uint64_t sector_id, std::span<const uint64_t> challenged_leaves);

fallback_sector_proof make_synthetic_sector_proof(const vanilla_shape& shape, uint64_t sector_id,
                                                  std::span<const uint64_t> challenged_leaves, std::mt19937_64& rng);

}  // namespace cuzk::post
