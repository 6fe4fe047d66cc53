// What a well-formed SnapDeals partition proof looks like for a sector of |sector_nodes| 32-byte nodes
// (storage-proofs-update constants.rs, vanilla.rs PublicParams): how many partitions and challenges, how many
// apex leaves, and the shape of each Merkle opening. Everything in a PartitionProof has a length fixed by
// it, so its bincode size is fixed too (32 GiB: 561,768 bytes per partition; 64 GiB: 575,528).
//
// Only what the sector size fixes is here; the registered update proofs (ids, names, parameter files) that
// map to these sizes live elsewhere.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/bincode/merkle_proof_bincode.hpp"
#include "common/update/vanilla_proof.hpp"

namespace cuzk::update {

struct update_vanilla_shape {
    uint64_t sector_nodes = 0;       // sector size / 32: the leaves of trees D and R
    unsigned challenge_bit_len = 0;  // log2(sector_nodes): the height of tree D
    unsigned partitions = 0;         // 1 up to 2^8 nodes, 2 up to 2^10, 4 up to 2^19, else 16
    unsigned partition_bit_len = 0;  // log2(partitions): tree D's top levels, above the apex roots
    unsigned challenges = 0;         // per partition: 10 up to 2^19 nodes, else 86
    unsigned apex_leaves = 0;        // per partition: 8 up to 2^8 nodes, else 128
    unsigned apex_leaf_bit_len = 0;  // log2(apex_leaves): the height of a partition's apex tree
    bincode::merkle_shape tree_d;    // binary, challenge_bit_len levels
    bincode::merkle_shape tree_r;    // Poseidon: 8-0-0 (2 KiB, 8 MiB, 512 MiB), 8-8-0 (32 GiB), 8-8-2 (64 GiB)

    // The tree D level whose nodes are the apex leaves: below it each challenge's own siblings, from it up
    // to the partition levels the apex tree (32 GiB: 30 - 4 - 7 = 19).
    unsigned apex_leaf_height() const { return challenge_bit_len - partition_bit_len - apex_leaf_bit_len; }
    // bincode sizes: one ChallengeProof, one PartitionProof
    uint64_t challenge_proof_bytes() const;
    uint64_t partition_proof_bytes() const;

    bool operator==(const update_vanilla_shape&) const = default;
};

// The shape for a sector of |sector_nodes| nodes (sector size in bytes / 32). The sizes rust-fil-proofs
// allows: the published 2 KiB, 8 MiB, 512 MiB, 32 GiB and 64 GiB, and its test sizes 1, 4, 8, 16 and 32 KiB
// and 16 MiB (whose trees R have sub and top levels at small sizes). Throws cuzk::input_error for another.
update_vanilla_shape update_vanilla_shape_of(uint64_t sector_nodes);

// Checks a proof held in memory (one not read through the decoder, which checks as it reads) against
// |shape|: the apex leaf and challenge counts, each opening's kind, levels, sibling counts and positions, and
// every domain value a canonical field element. Throws cuzk::input_error naming |source|, the partition, the
// challenge and the opening (proof_r_old, proof_d_new, proof_r_new).
void check_partition_shape(const partition_proof& proof, const update_vanilla_shape& shape, uint64_t partition,
                           std::string_view source = "SnapDeals vanilla proof");

}  // namespace cuzk::update
