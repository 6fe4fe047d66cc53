// The StackedDRG PoRep circuit of one partition, as rust-fil-proofs' StackedCircuit
// (storage-proofs-porep/src/stacked/circuit/proof.rs and params.rs): the same allocations,
// constraints and public inputs in the same order, so that it matches Filecoin's Groth16 parameters.
//
// Top: replica_id, comm_d, comm_r allocated and made public (in that order), replica_id unpacked to
// bits; comm_r_last and comm_c private; comm_r == Poseidon2(comm_c, comm_r_last).
// Per challenge: data leaf in tree D; 6 DRG and 8 expander parent columns (rows allocated, column
// hash, inclusion in tree C); the challenge as a UInt64 public input; one label per layer (SHA256
// over replica_id, layer, node and the 37 expanded parent labels); encoding = last label + data leaf
// included in tree R; the challenge's own column hash included in tree C.
#pragma once

#include <cstdint>
#include <vector>

#include "common/cs/constraint_system.hpp"
#include "common/gadgets/merkle_inclusion.hpp"
#include "common/porep/registered_proof.hpp"

namespace cuzk::porep {

// What the circuit's structure depends on.
struct stacked_circuit_shape {
    unsigned layers = 0;
    unsigned challenges = 0;         // per partition
    unsigned tree_d_levels = 0;      // binary SHA256 tree D
    gadgets::merkle_arities tree_c;  // trees C and R (Poseidon)
    unsigned drg_degree = 6;
    unsigned expansion_degree = 8;

    static stacked_circuit_shape of(const registered_proof& proof);
};

// One column of tree C: the node's label in every layer (layer 1 first) and its opening.
struct column_opening {
    std::vector<ff::fr_t> rows;
    std::vector<merkle::path_level> path;
};

struct challenge_witness {
    uint64_t challenge = 0;
    ff::fr_t data_leaf;
    std::vector<merkle::path_level> comm_d_path;
    std::vector<merkle::path_level> comm_r_last_path;
    std::vector<merkle::path_level> comm_c_path;
    std::vector<column_opening> drg_parents;  // drg_degree columns
    std::vector<column_opening> exp_parents;  // expansion_degree columns
};

struct partition_witness {
    ff::fr_t replica_id, comm_d, comm_r, comm_r_last, comm_c;
    std::vector<challenge_witness> challenges;
};

// Synthesizes one partition. |witness| is required when cs.has_witness() and ignored otherwise
// (setup and counting: the blank circuit). Throws std::invalid_argument when the witness does not
// have the shape's counts (challenges, columns, rows, path lengths), naming which.
void synthesize_stacked_partition(cs::constraint_system& cs, const stacked_circuit_shape& shape,
                                  const partition_witness* witness);

// Public inputs without ONE the circuit allocates: 3 + 18 per challenge.
uint64_t stacked_public_inputs(const stacked_circuit_shape& shape);

}  // namespace cuzk::porep
