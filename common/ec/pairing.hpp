// Optimal ate pairing on BLS12-381: e(P, Q) for P in G1, Q in G2, valued in the order-r subgroup of
// Fp12^*. The value equals noble's and zkcrypto's bit for bit, including their final exponent
// 3 (p^12 - 1)/r (the hard part's addition chain computes the cube of the textbook exponent).
//
// Miller loop over |x| = 0xd201000000010000 (x < 0: the loop result is conjugated). The G2 side is
// walked once in homogeneous projective coordinates on the M-type twist y^2 = x^3 + 4(1 + u) and
// leaves 3 Fp2 coefficients per step; a line evaluated at P = (xP, yP) is then
//   c0 + (c1 xP) v + (c2 yP) v w,
// the untwisted line scaled by factors in proper subfields of Fp12 that the final exponentiation
// removes. Inputs are assumed to lie in their prime-order subgroups (deserialization checks that).
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "common/ec/affine.hpp"
#include "common/ff/fp12.hpp"

namespace cuzk::ec {

// One line of the Miller loop, before evaluation at P.
struct line_coeffs {
    ff::fp2_t c0, c1, c2;
};

// The lines of the Miller loop for a fixed Q: 63 doubling lines and 5 addition lines (68 in all),
// in loop order. Preparing costs about a third of a Miller loop; Groth16 verification prepares its
// two fixed G2 points (gamma, delta) once per verifying key.
struct g2_prepared {
    std::vector<line_coeffs> coeffs;
    bool infinity = true;
};

g2_prepared prepare_g2(const g2_affine_t& q);

// f_{|x|,Q}(P) conjugated; one for the identity on either side.
ff::fp12_t miller_loop(const g1_affine_t& p, const g2_prepared& q);

// prod_i f_{|x|,Q_i}(P_i) with one shared squaring per step; pairs with an identity are skipped.
ff::fp12_t multi_miller_loop(std::span<const std::pair<g1_affine_t, const g2_prepared*>> terms);

// f^(3 (p^12 - 1)/r): easy part (p^6 - 1)(p^2 + 1), then the hard part by cyclotomic powers of x.
ff::fp12_t final_exponentiation(const ff::fp12_t& f);

ff::fp12_t pairing(const g1_affine_t& p, const g2_affine_t& q);

// True when prod_i e(P_i, Q_i) == 1: one multi Miller loop and one final exponentiation.
bool pairing_product_is_one(std::span<const std::pair<g1_affine_t, const g2_prepared*>> terms);

}  // namespace cuzk::ec
