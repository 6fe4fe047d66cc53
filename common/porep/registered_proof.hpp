// The registered seal proofs of Filecoin's StackedDRG PoRep and the shape each one fixes: sector
// size, layers, partitions, challenges, the Merkle tree shapes of trees C and R, the graph degrees
// and the proof API version (which changes the DRG and expander parents). Values are those of
// filecoin-proofs constants.rs / parameters.rs and rust-filecoin-proofs-api registry.rs.
//
// The circuit of one partition depends only on this shape; porep_id and api_version enter only
// through the public inputs (parents, challenges).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/graph/api_version.hpp"
#include "common/graph/porep_seed.hpp"

namespace cuzk::porep {

// Arities of a Poseidon tree (trees C and R): a base tree of |base| arity, then at most one sub level
// of |sub| arity over base trees, then at most one top level of |top| arity over sub trees; 0 means
// the level is absent (rust-fil-proofs' U0).
struct tree_shape {
    unsigned base = 8;
    unsigned sub = 0;
    unsigned top = 0;
};

struct registered_proof {
    std::string_view name;    // e.g. "StackedDrg32GiBV1_1"
    uint64_t id;              // RegisteredSealProof as the porep id's first u64 (registry.rs)
    graph::api_version version;
    uint64_t sector_size;     // bytes
    uint64_t nodes;           // sector_size / 32
    unsigned layers;
    unsigned partitions;
    unsigned challenges_per_partition;  // ceil(minimum / partitions), capped at 18
    unsigned minimum_challenges;        // 2 for test sizes, 176 for 32/64 GiB
    tree_shape tree;                    // trees C and R (tree D is binary SHA256)
    unsigned drg_degree = 6;
    unsigned expansion_degree = 8;
    // *_Feat_SyntheticPoRep: same circuit and parameters, challenges drawn from the synthetic set
    // (synthetic_challenges.hpp) instead of the interactive derivation.
    bool synthetic = false;

    // The porep id: id as u64 LE in bytes 0..8, nonce 0, zeros after.
    graph::porep_id_t porep_id() const;
    // Height of tree D (binary): log2(nodes).
    unsigned tree_d_height() const;
    // Levels of the base tree in trees C and R: log_base(nodes / (sub ? sub : 1) / (top ? top : 1)).
    unsigned base_tree_height() const;
    // Inclusion path length of trees C/R as the circuit walks it: base levels + sub + top.
    unsigned tree_c_path_levels() const;
    // Public inputs of one partition without ONE: replica_id, comm_d, comm_r, then per challenge
    // 18 (tree D index, 6 + 8 parent indices, the challenge, the tree R and tree C openings):
    // 3 + 18 * 18 = 327 for 32 GiB, so |vk.ic| = 328.
    unsigned public_inputs_per_partition() const;
};

// Every registered proof this build knows, in registry order (ids 0..14; the V1_2 non-interactive
// PoRep ids 15..19 are not supported).
std::span<const registered_proof> all_registered_proofs();

// "StackedDrg32GiBV1_1" -> its entry. Unknown names throw cuzk::input_error naming the valid ones.
const registered_proof& registered_proof_by_name(std::string_view name);
// By RegisteredSealProof id; throws cuzk::input_error on an unknown id.
const registered_proof& registered_proof_by_id(uint64_t id);

// "StackedDrg2KiBV1, StackedDrg8MiBV1, ..." for error messages and --help.
std::string registered_proof_names();

}  // namespace cuzk::porep
