// Native verification of one sector's vanilla proof, what storage-proofs-post's FallbackPoSt::verify checks
// per sector (and filecoin-proofs runs before proving): comm_r = Poseidon(comm_c, comm_r_last) with the
// arity-2 Merkle constants; then for every inclusion proof, its stored root is comm_r_last, the root computed
// from its leaf up its path (Poseidon of each level's arity) is comm_r_last, and the leaf it opens (the path
// positions, base level least significant) is the challenged one. A proof that fails would make an
// unsatisfiable circuit; refusing it here names the sector and the challenge instead.
//
// Cost: per inclusion proof one Poseidon per level (10 of arity 8 for 32 GiB, 41 us each on one core of the
// 2-core development machine), so a 32 GiB WindowPoSt partition (2349 sectors x 10 proofs) is about 10 s on
// one core: callers verify sectors in parallel.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "common/post/vanilla_proof.hpp"
#include "common/post/vanilla_shape.hpp"

namespace cuzk::post {

// |challenged_leaves|: one per inclusion proof, in order (challenges.hpp sector_challenges). Checks the shape
// first (check_shape). Throws cuzk::input_error naming |source|, the sector and the inclusion proof.
void verify_sector_proof(const fallback_sector_proof& proof, const vanilla_shape& shape,
                         std::span<const uint64_t> challenged_leaves, std::string_view source = "vanilla proof");

}  // namespace cuzk::post
