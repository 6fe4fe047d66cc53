// The fallback PoSt circuit of one partition, as rust-fil-proofs' FallbackPoStCircuit
// (storage-proofs-post/src/fallback/circuit.rs): the same allocations, constraints and public inputs in the
// same order, so that it matches Filecoin's Groth16 parameters for WindowPoSt and WinningPoSt.
//
// Per sector slot: comm_r_last, comm_c, comm_r allocated (in that order), comm_r made public; comm_r ==
// Poseidon2(comm_c, comm_r_last) (313 constraints); then per challenge the leaf allocated and its inclusion in
// tree R with a private root equal to comm_r_last, the path bits packed into one public input (the leaf index):
// 10 x (3 + 22 + 505) + 2 = 5,302 constraints for an 8-8-0 tree, 5,616 for 8-8-2.
// Slots are independent: a slot's constraints and variables depend only on its own witness, which is what
// lets a prover synthesize them in parallel and concatenate (bellperson's extensible synthesis).
#pragma once

#include <cstdint>
#include <vector>

#include "common/cs/constraint_system.hpp"
#include "common/gadgets/merkle_inclusion.hpp"
#include "common/post/registered_post_proof.hpp"

namespace cuzk::post {

struct fallback_circuit_shape {
    unsigned sectors = 0;     // sector slots
    unsigned challenges = 0;  // per slot
    gadgets::merkle_arities tree_r;

    // Window: sector_count slots of 10; Winning: 66 slots of 1.
    static fallback_circuit_shape of(const registered_post_proof& proof);
    // Public inputs without ONE: sectors * (1 + challenges).
    uint64_t public_inputs() const { return uint64_t(sectors) * (1 + challenges); }
};

struct challenge_opening {
    ff::fr_t leaf;
    std::vector<merkle::path_level> path;  // leaf to root of tree R
};

struct sector_slot {
    ff::fr_t comm_r, comm_c, comm_r_last;
    std::vector<challenge_opening> challenges;
};

// Exactly shape.sectors slots (padding already applied: fallback_witness.hpp).
struct fallback_witness {
    std::vector<sector_slot> sectors;
};

// One sector slot. |slot| is required when cs.has_witness() and ignored otherwise. Throws
// std::invalid_argument when the slot does not have the shape's challenge count or path shape.
void synthesize_sector_slot(cs::constraint_system& cs, const fallback_circuit_shape& shape, const sector_slot* slot);

// The whole partition, slot after slot. |witness| as above.
void synthesize_fallback_post(cs::constraint_system& cs, const fallback_circuit_shape& shape,
                              const fallback_witness* witness);

}  // namespace cuzk::post
