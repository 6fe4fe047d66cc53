// Between the vanilla proof of one SnapDeals partition (a decoded storage-proofs-update PartitionProof,
// vanilla_proof.hpp) and the circuit's witness (empty_sector_update_circuit.hpp), as rust-fil-proofs'
// EmptySectorUpdateCompound::circuit and circuit.rs PrivateInputs::new take it:
//   comm_c                 the proof's comm_c
//   root_r_old/root_r_new  the roots of challenge 0's proof_r_old / proof_r_new (all share them)
//   apex leaves            the proof's apex_leafs, in order
//   per challenge          the leaves of proof_r_old and proof_d_new (leaf_r_new is computed in the circuit) and
//                          the siblings of its three openings, leaf upward (tree R: base, sub, top levels);
//                          the insert positions are dropped: the circuit takes them from the challenge's bits
//   partition path         the top partition_bit_len levels of challenge 0's proof_d_new (the circuit reads them
//                          from challenges[0].path_d_new); every challenge must carry the same siblings there
//   public values          k, h, comm_r_old, comm_d_new, comm_r_new: the caller's, not the proof's
// Only the shape is checked here; whether the openings hash to their roots and encode the update is
// vanilla_verify.hpp's and vanilla_encoding.hpp's (update_circuit.hpp runs them before building circuits).
#pragma once

#include <string_view>

#include "common/update/empty_sector_update_circuit.hpp"
#include "common/update/update_shape.hpp"
#include "common/update/vanilla_encoding.hpp"
#include "common/update/vanilla_proof.hpp"

namespace cuzk::update {

// The witness of partition |k| of an update of |shape| from its vanilla proof and the update's public values.
// Throws cuzk::input_error naming |source|, the partition and, where it is one challenge's fault, the challenge
// and the opening: a k or h the shape does not allow, counts, proof kinds, levels, sibling counts or positions
// other than the shape's (vanilla_shape.hpp check_partition_shape), a value that is not a canonical field
// element, or a challenge whose tree D partition levels differ from challenge 0's.
update_partition_witness partition_witness_of(const update_shape& shape, const partition_proof& proof, unsigned k,
                                              const update_commitments& pub,
                                              std::string_view source = "SnapDeals vanilla proof");

}  // namespace cuzk::update
