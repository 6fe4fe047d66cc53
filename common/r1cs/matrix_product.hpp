// The prover's rows from the recorded matrices and a witness, on the CPU: a = A.z, b = B.z, c = C.z for the
// circuit rows, then bellperson's input rows (a = input, b = c = 0), prover_rows() entries each and equal to
// what proving_assignment evaluates during synthesis. This is the CPU backend's path and the reference the
// GPU product (gpud/cuda/r1cs_*) is compared against.
//
// Cost: one pass over the terms, rows in parallel (TBB). A coefficient +-1 costs an addition or subtraction;
// any other a multiplication unless the value is 0 or 1 (PoRep's witness is mostly bits).
#pragma once

#include <span>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/r1cs/r1cs_matrices.hpp"

namespace cuzk::r1cs {

// Throws input_error, naming both counts, when a witness of |num_inputs| inputs (ONE included) and
// |num_aux| aux values is not one for |m|.
void check_witness_sizes(const r1cs_matrices& m, std::size_t num_inputs, std::size_t num_aux);

// Fills |a|, |b| and |c| (prover_rows() entries each; std::invalid_argument otherwise). |inputs| starts
// with ONE; the sizes are checked as check_witness_sizes does, and inputs[0] == 1 (input_error otherwise).
void evaluate_rows(const r1cs_matrices& m, std::span<const ff::fr_t> inputs, std::span<const ff::fr_t> aux,
                   std::span<ff::fr_t> a, std::span<ff::fr_t> b, std::span<ff::fr_t> c);

struct prover_rows {
    std::vector<ff::fr_t> a, b, c;
};
prover_rows evaluate_rows(const r1cs_matrices& m, std::span<const ff::fr_t> inputs, std::span<const ff::fr_t> aux);

}  // namespace cuzk::r1cs
