// The SnapDeals circuit of one partition, as rust-fil-proofs' EmptySectorUpdateCircuit
// (storage-proofs-update circuit.rs; the plain circuit with a SHA256 tree D, not the Poseidon variant): the same
// allocations and constraints in the same order, so that it matches Filecoin's Groth16 parameters
// (v28-empty-sector-update-merkletree-poseidon_hasher-*).
//
// Order: k_and_h_select (input) and its partition_bit_len + 6 bits, the partition packed; comm_r_old,
// comm_d_new, comm_r_new (inputs); phi = H_GR(comm_d_new, comm_r_old); comm_c, root_r_old, root_r_new, the apex
// leaves, the partition path; comm_r_old == H(comm_c, root_r_old) and comm_r_new == H(comm_c, root_r_new);
// apex_por; gen_challenge_bits; then per challenge: its h high bits, rho = H_GR(phi, high), leaf_r_old and
// leaf_d_new, leaf_r_new = leaf_r_old + leaf_d_new * rho, tree R old and new openings (siblings allocated per
// tree, then the climb), the apex leaf selected by the challenge's bits above tree D's lower levels, and tree D
// from leaf_d_new up to it. Costs at 32 GiB: 5,951,289 fixed + 86 x 873,235 = 81,049,499 constraints.
#pragma once

#include <vector>

#include "common/cs/constraint_system.hpp"
#include "common/ff/bls12_381.hpp"
#include "common/update/update_shape.hpp"

namespace cuzk::update {

// What the circuit needs about one challenged node: the leaves it opens (leaf_r_new is computed, not given)
// and the three paths' siblings, leaf upward. The insert positions are not part of it: the circuit takes them
// from the challenge's bits.
struct update_challenge_witness {
    ff::fr_t leaf_r_old;
    ff::fr_t leaf_d_new;
    std::vector<std::vector<ff::fr_t>> path_r_old;  // tree R levels, arity - 1 siblings each
    std::vector<std::vector<ff::fr_t>> path_r_new;
    std::vector<ff::fr_t> path_d_new;  // all tree D levels (challenge_bit_len), one sibling each
};

// One partition. The partition path (tree D's top partition_bit_len levels) is taken from the first
// challenge's path_d_new; every challenge of a partition shares it.
struct update_partition_witness {
    unsigned k = 0;  // partition index
    unsigned h = 0;  // one of shape.hs
    ff::fr_t comm_r_old, comm_d_new, comm_r_new;
    ff::fr_t comm_c, root_r_old, root_r_new;
    std::vector<ff::fr_t> apex_leaves;  // shape.apex_leaf_count tree D nodes of partition k
    std::vector<update_challenge_witness> challenges;  // shape.challenge_count, in challenge order
};

// Synthesizes partition |w| of a sector of |shape|. |w| is required when cs.has_witness() and ignored otherwise.
// Throws std::invalid_argument for a witness of another shape (counts, path lengths, partition paths that
// differ between challenges) and cuzk::input_error for a k or h the shape does not allow.
void synthesize_empty_sector_update(cs::constraint_system& cs, const update_shape& shape,
                                    const update_partition_witness* w);

}  // namespace cuzk::update
