// What a well-formed vanilla proof of one sector looks like for a registered PoSt proof: the shape of tree R
// (storage-proofs-core merkle/proof.rs: a Single proof for a base tree alone, Sub with one sub level, Top with
// sub and top levels; every path element carries arity - 1 siblings and a position below arity) and the
// number of inclusion proofs in the sector's one SectorProof (10 for WindowPoSt, 66 for WinningPoSt).
// Everything in a FallbackPoStSectorProof has a length fixed by this shape, so its bincode size is too.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/bincode/merkle_proof_bincode.hpp"
#include "common/post/vanilla_proof.hpp"

namespace cuzk::post {

inline constexpr unsigned WINDOW_POST_CHALLENGES = 10;
inline constexpr unsigned WINNING_POST_CHALLENGES = 66;

struct vanilla_shape {
    uint64_t leaves = 0;       // sector_size / 32: the leaves of tree R
    unsigned base_arity = 8;
    unsigned base_levels = 0;  // levels of a base tree: leaves / sub / top = base_arity^base_levels
    unsigned sub_arity = 0;    // 0: no sub level
    unsigned top_arity = 0;    // 0: no top level (a top level needs a sub level)
    unsigned challenges = 0;   // inclusion proofs per sector

    bincode::merkle_shape tree_r() const;
    c1::merkle_proof_kind kind() const;
    // bincode sizes: one inclusion proof (MerkleProof), one sector (FallbackPoStSectorProof)
    uint64_t inclusion_proof_bytes() const;
    uint64_t sector_proof_bytes() const;

    bool operator==(const vanilla_shape&) const = default;
};

// The shape for a sector of |sector_size| bytes: its tree R as the registered seal proofs of that size build
// it (8-0-0 up to 512 MiB, 8-8-0 for 32 GiB, 8-8-2 for 64 GiB). Throws cuzk::input_error for another size.
vanilla_shape vanilla_shape_of(uint64_t sector_size, unsigned challenges);

// Checks a proof held in memory (one not read through the decoder, which checks as it reads) against
// |shape|: one SectorProof, |shape.challenges| inclusion proofs of the shape's kind, path lengths, sibling
// counts and positions, every domain value a canonical field element. Throws cuzk::input_error naming
// |source|, the sector, the inclusion proof and the level.
void check_shape(const fallback_sector_proof& proof, const vanilla_shape& shape, std::string_view source);

}  // namespace cuzk::post
