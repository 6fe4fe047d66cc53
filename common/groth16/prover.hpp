// The Groth16 prover on the CPU, in bellperson's form. With w = (inputs, aux) and fresh random r, s:
//   A  = alpha + sum_i w_i a_i + r delta                       (G1; a over inputs, then A-dense aux)
//   B  = beta  + sum_i w_i b_i + s delta                       (G2; b over B-dense inputs and aux)
//   B1 = the same in G1 with beta_g1, delta_g1 and b_g1
//   C  = s A + r B1 - r s delta + sum_j h_j H_j + sum_j aux_j l_j
// where H_j are the m - 1 coefficients of (a b - c) / Z computed by NTTs from the per-row
// evaluations. (bellperson adds s alpha + r beta + r s delta + s A_msm + r B1_msm instead, which is
// the same point.)
#pragma once

#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/groth16/keys.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/randomness.hpp"
#include "common/msm/msm.hpp"

namespace cuzk::groth16 {

// Wall-clock seconds per stage, and how the MSM scalars split (zeros are skipped, ones summed).
struct prove_timings {
    double synthesis_s = 0;
    double h_ntt_s = 0;  // the 6 NTTs and pointwise work of H
    double h_msm_s = 0;
    double l_msm_s = 0;
    double a_msm_s = 0;
    double b_g1_msm_s = 0;
    double b_g2_msm_s = 0;
    double assemble_s = 0;  // density compaction, blinding and final additions
    double total_s = 0;
    msm::msm_stats l_stats, a_stats, b_stats;
    std::string to_string() const;  // "synthesis 0.10s, h_ntt 0.05s, ..."
};

struct proof_result {
    proof pi;
    std::vector<ff::fr_t> public_inputs;  // without ONE
    prove_timings timings;
};

// Synthesizes |circuit| with its witness and proves. Throws std::invalid_argument when the
// parameters do not fit the circuit (sizes named in the message).
proof_result create_proof(const circuits::circuit& circuit, const parameters& params, rng_fn rng = system_rng());

// Proves from an assignment synthesized elsewhere (finish() is called here if it was not). The
// assignment's rows are consumed (overwritten by the H computation, then released).
proof create_proof(proving_assignment& assignment, const parameters& params, rng_fn rng,
                   prove_timings* timings = nullptr);

}  // namespace cuzk::groth16
