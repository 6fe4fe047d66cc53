// Number-theoretic transforms over Fr on a radix-2 domain, multi-threaded with TBB.
//
// Public transforms take and return natural order (index i <-> omega^i):
//   forward:        coefficients -> evaluations at omega^i
//   inverse:        evaluations at omega^i -> coefficients
//   coset_forward:  coefficients -> evaluations at g omega^i   (g = 7)
//   coset_inverse:  evaluations at g omega^i -> coefficients
// Each is one decimation-in-frequency pass (natural in, bit-reversed out) plus one bit-reversal.
//
// compute_h runs the Groth16 quotient without any bit reversal between its transforms: the DIF
// inverse leaves coefficients bit-reversed, the coset scaling is applied in that order, and a DIT
// pass (bit-reversed in, natural out) produces the coset evaluations; only the final H (and C's
// coefficients, subtracted from it there) is bit-reversed back to natural order. C is not evaluated on
// the coset: H = (Q - C) / (g^n - 1) with Q the coset inverse transform of A B's coset evaluations
// (ntt.cpp), so compute_h runs 6 transforms where the textbook pipeline runs 7.
//
// Cost: (n/2) log2(n) butterflies of 1M + 2 additions (the j = 0 butterfly of each span skips the
// M). Stages wider than domain::BLOCK compute their twiddles on the fly, 1M per twiddle per task,
// reused across the task's sub-transforms: about two stages' worth of extra M in all, in exchange
// for O(sqrt n) twiddle memory. compute_h: 6 transforms, 3n M of coset scaling, 2 bit reversals.
#pragma once

#include <span>
#include <vector>

#include "common/ntt/domain.hpp"

namespace cuzk::ntt {

// All transforms require x.size() == d.size() (std::invalid_argument otherwise).
void forward(const domain& d, std::span<fr_t> x);
void inverse(const domain& d, std::span<fr_t> x);
void coset_forward(const domain& d, std::span<fr_t> x);
void coset_inverse(const domain& d, std::span<fr_t> x);

// Groth16 H: given evaluations a, b, c over the domain (natural order, a_i = A(omega^i)), writes
// into |a| the n coefficients of H = (A B - C) / Z, Z = X^n - 1; b and c are clobbered (b holds
// the coset evaluations of B afterwards). The top coefficient is zero when A B - C is divisible.
void compute_h(const domain& d, std::vector<fr_t>& a, std::vector<fr_t>& b, std::vector<fr_t>& c);

// The building blocks, for callers that keep data bit-reversed between transforms.
// dif: natural in, bit-reversed out, unscaled (x_k -> sum_i x_i w^(i k) with w = omega, or
//      omega^-1 when |inverse|; no 1/n).
// dit: bit-reversed in, natural out, same sums.
void dif(const domain& d, std::span<fr_t> x, bool inverse);
void dit(const domain& d, std::span<fr_t> x, bool inverse);
void bit_reverse(std::span<fr_t> x);  // x.size() a power of two

}  // namespace cuzk::ntt
