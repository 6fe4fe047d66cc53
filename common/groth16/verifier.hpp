// Groth16 verification as bellperson does it: with the inputs folded into
//   acc = ic[0] + sum_i x_i ic[i+1],
// a proof (A, B, C) is valid when e(A, B) e(acc, -gamma) e(C, -delta) == e(alpha, beta): one
// multi Miller loop over three pairs and one final exponentiation.
//
// Batch verification (zcash spec, appendix B.2) combines n proofs with random 128-bit
// coefficients r_j and checks, with one Miller loop over n + 3 pairs,
//   prod_j e(r_j A_j, B_j) e(-(sum_j r_j) alpha, beta) e(sum_j r_j acc_j, -gamma) e(sum_j r_j C_j, -delta) == 1.
// An invalid proof passes only with probability about 2^-128. The alpha-beta term is paired
// in the loop instead of raising e(alpha, beta) to a power: one more pair costs less than an Fp12
// exponentiation.
#pragma once

#include <span>
#include <vector>

#include "common/ec/pairing.hpp"
#include "common/groth16/keys.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/randomness.hpp"

namespace cuzk::groth16 {

struct prepared_verifying_key {
    ff::fp12_t alpha_g1_beta_g2;  // e(alpha, beta)
    ec::g2_prepared neg_gamma_g2;
    ec::g2_prepared neg_delta_g2;
    ec::g2_prepared beta_g2;  // for batch verification
    ec::g1_affine_t alpha_g1;
    std::vector<ec::g1_affine_t> ic;
};

prepared_verifying_key prepare_verifying_key(const verifying_key& vk);

// |public_inputs| excludes ONE. Throws std::invalid_argument when |public_inputs| + 1 != |ic|
// (the proof is then not for this circuit shape, which is an error, not a false proof).
bool verify_proof(const prepared_verifying_key& pvk, const proof& pi, std::span<const ff::fr_t> public_inputs);

// True when every proof is valid (with overwhelming probability), and for an empty batch. The
// coefficients must be unpredictable to whoever made the proofs: keep the default generator
// outside tests. Throws std::invalid_argument when the counts disagree.
bool batch_verify(const prepared_verifying_key& pvk, std::span<const proof> proofs,
                  std::span<const std::vector<ff::fr_t>> public_inputs, rng_fn rng = system_rng());

}  // namespace cuzk::groth16
