// Between C1 (SealCommitPhase1Output, common/c1) and the partition circuit, as rust-fil-proofs'
// StackedCompound::circuit and seal_commit_phase2 do it:
//   - the public inputs: replica_id, comm_d, comm_r and the seed from the C1;
//   - per partition k the witness: comm_r_last and comm_c from the first challenge's tree R and
//     tree C roots (all challenges must agree), per challenge the data leaf, the challenge (the
//     first labeling proof's node), the three openings and the 6 + 8 parent columns.
// And the other way, for the test sealer: a sealed sector's vanilla proofs as a C1.
#pragma once

#include "common/c1/seal_commit_phase1.hpp"
#include "common/porep/native_seal.hpp"
#include "common/porep/public_inputs.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/stacked_circuit.hpp"

namespace cuzk::porep {

// The registered proof a C1 names; throws cuzk::input_error when unknown or when its partition and
// challenge counts differ from the table.
const registered_proof& registered_proof_of(const c1::seal_commit_phase1_output& c1);

seal_public_inputs public_inputs_of(const c1::seal_commit_phase1_output& c1);

// Throws cuzk::input_error naming the JSON path of a value that is not a field element or of a
// proof whose shape does not fit the registered proof.
partition_witness witness_of(const c1::seal_commit_phase1_output& c1, const registered_proof& proof,
                             unsigned partition);

// The C1 a sealer writes for |sector|: challenges of every partition from |seed|.
c1::seal_commit_phase1_output make_c1(const registered_proof& proof, const graph::stacked_graph& graph,
                                      const sealed_sector& sector, const bytes32& seed, const bytes32& ticket);

}  // namespace cuzk::porep
