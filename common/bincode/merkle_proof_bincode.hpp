// storage-proofs-core's MerkleProof in bincode (merkle/proof.rs; bincode_reader.hpp for the encoding):
//   MerkleProof { data: ProofData }, ProofData an enum with a u32 tag: 0 Single, 1 Sub, 2 Top
//   Single { root, leaf, path }          Sub { base_proof, sub_proof, root, leaf }
//   Top { base_proof, sub_proof, top_proof, root, leaf }
//   InclusionPath { path: Vec<PathElement> }, PathElement { hashes: Vec<[u8; 32]>, index: usize }
// A tree's type fixes everything in it: the variant, each part's levels, arity - 1 siblings per level and a
// position below the arity. Reading checks each against a merkle_shape as it goes.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/bincode/bincode_reader.hpp"
#include "common/bincode/bincode_writer.hpp"
#include "common/c1/seal_commit_phase1.hpp"

namespace cuzk::bincode {

// A tree of |base_arity|-ary base trees of |base_levels| levels, then at most one sub level over base trees
// and at most one top level over sub trees (0: absent; a top level needs a sub level). Tree D (binary SHA256)
// is {2, log2(nodes)}; tree R of a 32 GiB sector {8, 9, 8, 0}.
struct merkle_shape {
    unsigned base_arity = 2;
    unsigned base_levels = 0;
    unsigned sub_arity = 0;
    unsigned top_arity = 0;

    c1::merkle_proof_kind kind() const;
    unsigned levels() const { return base_levels + (sub_arity ? 1 : 0) + (top_arity ? 1 : 0); }
    uint64_t leaves() const;
    uint64_t proof_bytes() const;  // the bincode size of one MerkleProof

    bool operator==(const merkle_shape&) const = default;
};

const char* kind_name(c1::merkle_proof_kind k);  // the Rust variant: "Single", "Sub", "Top"

// Reads one MerkleProof of |shape|. |tree| ends the message of a wrong variant ("... expected 1 (Sub) for
// <tree>"). Errors carry the reader's contexts plus the path part and level ("base path level 3").
c1::merkle_proof read_merkle_proof(reader& in, const merkle_shape& shape, std::string_view tree);

// Writes whatever |p| holds, in the layout of its kind.
void write_merkle_proof(writer& out, const c1::merkle_proof& p);

}  // namespace cuzk::bincode
