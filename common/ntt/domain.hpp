// A radix-2 evaluation domain of Fr: the subgroup of 2^log_n-th roots of unity, its coset by the
// multiplicative generator g = 7, and the twiddle tables the NTT reads.
//
// omega = 7^((r-1)/2^32) squared down to order n, the root bellperson uses, so evaluations line
// up with the parameters' Lagrange-basis queries.
//
// Twiddles: the transform runs its last log2(BLOCK) stages inside cache-sized blocks with
// per-stage tables (BLOCK entries in all, independent of n); the earlier, larger stages get their
// twiddles from two sqrt-sized tables (omega^e = fine[e mod 2^s] * coarse[e >> s]), so the memory
// of a domain is O(sqrt(n)) field elements even at n = 2^27.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/ff/bls12_381.hpp"

namespace cuzk::ntt {

using ff::fr_t;

// Powers of one root w of order n = 2^log_n: w^e for any e, as a product of two table entries.
class root_powers {
public:
    root_powers() = default;
    root_powers(const fr_t& w, unsigned log_n);
    // w^e for 0 <= e < n: one multiplication.
    fr_t pow(size_t e) const { return fine_[e & fine_mask_] * coarse_[e >> fine_bits_]; }

private:
    unsigned fine_bits_ = 0;
    size_t fine_mask_ = 0;
    std::vector<fr_t> fine_;    // w^i, i < 2^fine_bits
    std::vector<fr_t> coarse_;  // w^(i 2^fine_bits), i < n / 2^fine_bits
};

class domain {
public:
    // The transforms run their small stages in blocks of this many elements (128 KiB of Fr).
    static constexpr unsigned LOG_BLOCK = 12;
    static constexpr size_t BLOCK = size_t(1) << LOG_BLOCK;

    explicit domain(unsigned log_n);  // throws std::invalid_argument when log_n > 32

    unsigned log_size() const { return log_n_; }
    size_t size() const { return n_; }
    const fr_t& omega() const { return omega_; }
    const fr_t& omega_inv() const { return omega_inv_; }
    const fr_t& size_inv() const { return size_inv_; }
    const fr_t& coset_gen() const { return g_; }          // g = FR_GENERATOR = 7
    const fr_t& coset_gen_inv() const { return g_inv_; }
    // 1 / (g^n - 1): Z(X) = X^n - 1 evaluated anywhere on the coset g * <omega>.
    const fr_t& vanishing_on_coset_inv() const { return z_coset_inv_; }

    // Twiddles of stage m (butterflies of half-width m, m < BLOCK, m a power of two):
    // small_twiddles(inverse)[m + j] = w_{2m}^j for j < m, w_{2m} the root of order 2m
    // (its inverse when |inverse|).
    const fr_t* small_twiddles(bool inverse) const { return inverse ? small_inv_.data() : small_fwd_.data(); }
    // omega^e (or omega^-e) for 0 <= e < n.
    const root_powers& powers(bool inverse) const { return inverse ? pow_inv_ : pow_fwd_; }

private:
    unsigned log_n_;
    size_t n_;
    fr_t omega_, omega_inv_, size_inv_, g_, g_inv_, z_coset_inv_;
    std::vector<fr_t> small_fwd_, small_inv_;
    root_powers pow_fwd_, pow_inv_;
};

// The root of unity of order 2^32 (7^t with r - 1 = 2^32 t), squared down to order 2^log_n.
fr_t root_of_unity(unsigned log_n);

}  // namespace cuzk::ntt
