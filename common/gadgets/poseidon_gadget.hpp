// Poseidon in-circuit, constraint for constraint and variable for variable the R1CS of neptune's
// legacy circuit (neptune::circuit::poseidon_hash), which is what rust-fil-proofs synthesizes for
// every Poseidon hash of the PoRep circuit (tree C/R paths, column hashes, comm_r) and so what
// Filecoin's Groth16 parameters were generated for.
//
// The circuit follows neptune's optimized permutation (compressed round constants, pre-sparse and
// sparse matrices) and folds every linear layer into linear combinations; only S-boxes and the
// allocation of a combination that enters an S-box cost constraints:
//   S-box on an allocated input, first round:    3  ((x+k)^2, ^4, *(x+k)+k')
//   S-box on a linear combination, other rounds: 4  (allocate lc, ^2, ^4, *x+k)
//   the tag's first S-box is a constant:         0
//   output (state element 1 allocated):          1
// Per hash of width t: 3 * (t*R_F + R_P - 1) + (t*R_F + R_P - arity) constraints and as many new
// private variables: 311, 377, 505, 598 for arities 2, 4, 8, 11 (Standard strength).
//
// Every linear combination is a fixed function of the constants, so the whole constraint list is
// built once per constant set (a "plan" over local slots: ONE, the inputs, then each new variable)
// and replayed per hash: synthesis copies 2,818 / 3,421 / 4,735 / 5,809 terms (arity 2 / 4 / 8 /
// 11) into the constraint system and, with a witness, runs the native permutation once, recording
// the values it allocates.
#pragma once

#include <cstddef>
#include <span>

#include "common/cs/constraint_system.hpp"
#include "common/poseidon/constants.hpp"

namespace cuzk::gadgets {

struct poseidon_output {
    cs::variable var;  // the allocated hash
    ff::fr_t value;    // its witness value (zero when the system has no witness)
};

// Hash of |preimage| (exactly c.arity variables, already allocated: aux or input) with witness
// |values| (same length; ignored and may be empty when !cs.has_witness()). Adds
// poseidon_constraints(c) constraints and private variables.
poseidon_output poseidon_hash(cs::constraint_system& cs, std::span<const cs::variable> preimage,
                              std::span<const ff::fr_t> values, const poseidon::poseidon_constants& c);

// As above with the shared Standard constants for preimage.size().
poseidon_output poseidon_hash(cs::constraint_system& cs, std::span<const cs::variable> preimage,
                              std::span<const ff::fr_t> values);

// Constraints (= new private variables) one hash adds.
size_t poseidon_constraints(const poseidon::poseidon_constants& c);

}  // namespace cuzk::gadgets
