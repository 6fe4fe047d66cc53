// Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u: the middle layer of the pairing tower (noble's and zkcrypto's).
// Costs are counted in Fp2 multiplications (M2) and squarings (S2).
#pragma once

#include <array>

#include "common/ff/fp2.hpp"

// Tower products are called, never forced inline: each is dozens of Fp products, so the call is free,
// while inlining three layers deep made translation units take minutes to compile.
#define CUZK_TOWER_OP CUZK_HD __attribute__((noinline))

namespace cuzk::ff {

// Fp2 products as calls (3 or 2 Fp products each, kilobytes of code when inlined): the tower uses
// them hundreds of times, and the call costs far less than the code growth.
CUZK_TOWER_OP inline fp2_t fp2_mul(const fp2_t& a, const fp2_t& b) { return a * b; }
CUZK_TOWER_OP inline fp2_t fp2_sqr(const fp2_t& a) { return a.sqr(); }

// Frobenius constants of the tower. With w^6 = xi, x -> x^(p^k) sends w to gamma_k * w where
// gamma_k = xi^((p^k - 1)/6); then v = w^2 goes to gamma_k^2 v and v^2 to gamma_k^4 v^2.
// Since (p^k - 1)/6 = ((p - 1)/6)(1 + p + ... + p^(k-1)) and a^(p^j) is a j-fold conjugation on Fp2,
// gamma_k = prod_{j<k} conj^j(gamma_1): one Fp2 power at startup, the rest by multiplication.
struct tower_frobenius {
    std::array<fp2_t, 12> gamma1;  // gamma_k
    std::array<fp2_t, 12> gamma2;  // gamma_k^2 (the v coefficient)
    std::array<fp2_t, 12> gamma4;  // gamma_k^4 (the v^2 coefficient)

    static const tower_frobenius& get() {
        static const tower_frobenius table = compute();
        return table;
    }

private:
    static tower_frobenius compute() {
        // (p - 1)/6: p - 1 is even and divisible by 3 (p = 1 mod 6), so halve then divide by 3.
        limbs<6> e = shr1(fp_t::minus_one_repr());
        e = div_small(e, 3);
        fp2_t xi = fp2_t::one().mul_by_nonresidue();
        fp2_t g1 = xi.pow(e);
        tower_frobenius t;
        fp2_t acc = fp2_t::one();
        for (unsigned k = 0; k < 12; ++k) {
            t.gamma1[k] = acc;
            t.gamma2[k] = acc.sqr();
            t.gamma4[k] = t.gamma2[k].sqr();
            acc *= g1.frobenius_map(k);
        }
        return t;
    }
    static limbs<6> div_small(const limbs<6>& a, uint64_t d) {
        limbs<6> q{};
        u128 rem = 0;
        for (size_t i = 6; i-- > 0;) {
            u128 cur = (rem << 64) | a[i];
            q[i] = uint64_t(cur / d);
            rem = cur % d;
        }
        return q;
    }
};

struct fp6_t {
    fp2_t c0, c1, c2;  // c0 + c1 v + c2 v^2

    constexpr fp6_t() = default;
    CUZK_HD constexpr fp6_t(const fp2_t& a, const fp2_t& b, const fp2_t& c) : c0(a), c1(b), c2(c) {}

    static constexpr fp6_t zero() { return fp6_t(); }
    static constexpr fp6_t one() { return fp6_t(fp2_t::one(), fp2_t(), fp2_t()); }

    CUZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
    CUZK_HD bool is_one() const { return c0.is_one() && c1.is_zero() && c2.is_zero(); }
    CUZK_HD friend bool operator==(const fp6_t& a, const fp6_t& b) {
        return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2;
    }
    CUZK_HD friend bool operator!=(const fp6_t& a, const fp6_t& b) { return !(a == b); }

    CUZK_HD_INLINE fp6_t& operator+=(const fp6_t& b) {
        c0 += b.c0;
        c1 += b.c1;
        c2 += b.c2;
        return *this;
    }
    CUZK_HD_INLINE fp6_t& operator-=(const fp6_t& b) {
        c0 -= b.c0;
        c1 -= b.c1;
        c2 -= b.c2;
        return *this;
    }
    // Karatsuba over three coefficients: 6 M2.
    CUZK_TOWER_OP fp6_t& operator*=(const fp6_t& b) {
        fp2_t v0 = fp2_mul(c0, b.c0);
        fp2_t v1 = fp2_mul(c1, b.c1);
        fp2_t v2 = fp2_mul(c2, b.c2);
        fp2_t r0 = (fp2_mul(c1 + c2, b.c1 + b.c2) - v1 - v2).mul_by_nonresidue() + v0;
        fp2_t r1 = fp2_mul(c0 + c1, b.c0 + b.c1) - v0 - v1 + v2.mul_by_nonresidue();
        fp2_t r2 = fp2_mul(c0 + c2, b.c0 + b.c2) - v0 - v2 + v1;
        c0 = r0;
        c1 = r1;
        c2 = r2;
        return *this;
    }
    CUZK_HD_INLINE friend fp6_t operator+(fp6_t a, const fp6_t& b) { return a += b; }
    CUZK_HD_INLINE friend fp6_t operator-(fp6_t a, const fp6_t& b) { return a -= b; }
    CUZK_HD_INLINE friend fp6_t operator*(fp6_t a, const fp6_t& b) { return a *= b; }
    CUZK_HD_INLINE fp6_t operator-() const { return fp6_t(-c0, -c1, -c2); }
    CUZK_HD_INLINE fp6_t dbl() const { return fp6_t(c0.dbl(), c1.dbl(), c2.dbl()); }

    // Chung-Hasan SQR2: 2 M2 + 3 S2.
    CUZK_TOWER_OP fp6_t sqr() const {
        fp2_t s0 = fp2_sqr(c0);
        fp2_t s1 = fp2_mul(c0, c1).dbl();
        fp2_t s2 = fp2_sqr(c0 - c1 + c2);
        fp2_t s3 = fp2_mul(c1, c2).dbl();
        fp2_t s4 = fp2_sqr(c2);
        return fp6_t(s0 + s3.mul_by_nonresidue(), s1 + s4.mul_by_nonresidue(), s1 + s2 + s3 - s0 - s4);
    }

    // Multiplication by v (the Fp12 non-residue, w^2 = v): (c0, c1, c2) -> (xi c2, c0, c1).
    CUZK_HD_INLINE fp6_t mul_by_nonresidue() const { return fp6_t(c2.mul_by_nonresidue(), c0, c1); }

    CUZK_TOWER_OP fp6_t operator*(const fp2_t& s) const {
        return fp6_t(fp2_mul(c0, s), fp2_mul(c1, s), fp2_mul(c2, s));
    }

    // Sparse product by b0 + b1 v (the line's Fp6 half): 5 M2.
    CUZK_TOWER_OP fp6_t mul_by_01(const fp2_t& b0, const fp2_t& b1) const {
        fp2_t v0 = fp2_mul(c0, b0);
        fp2_t v1 = fp2_mul(c1, b1);
        fp2_t r0 = fp2_mul(c2, b1).mul_by_nonresidue() + v0;
        fp2_t r1 = fp2_mul(c0 + c1, b0 + b1) - v0 - v1;
        fp2_t r2 = fp2_mul(c2, b0) + v1;
        return fp6_t(r0, r1, r2);
    }
    // Sparse product by b1 v: 3 M2.
    CUZK_TOWER_OP fp6_t mul_by_1(const fp2_t& b1) const {
        return fp6_t(fp2_mul(c2, b1).mul_by_nonresidue(), fp2_mul(c0, b1), fp2_mul(c1, b1));
    }

    // Adjugate over the norm to Fp2: 9 M2 + 1 Fp2 inversion. The inverse of zero is zero.
    CUZK_TOWER_OP fp6_t inverse() const {
        fp2_t t0 = fp2_sqr(c0) - fp2_mul(c1, c2).mul_by_nonresidue();
        fp2_t t1 = fp2_sqr(c2).mul_by_nonresidue() - fp2_mul(c0, c1);
        fp2_t t2 = fp2_sqr(c1) - fp2_mul(c0, c2);
        fp2_t norm = fp2_mul(c0, t0) + (fp2_mul(c2, t1) + fp2_mul(c1, t2)).mul_by_nonresidue();
        return fp6_t(t0, t1, t2) * norm.inverse();
    }

    // x -> x^(p^power), power taken modulo 12 (the table's period on the whole tower).
    fp6_t frobenius_map(unsigned power) const {
        const tower_frobenius& t = tower_frobenius::get();
        unsigned k = power % 12;
        return fp6_t(c0.frobenius_map(k), c1.frobenius_map(k) * t.gamma2[k], c2.frobenius_map(k) * t.gamma4[k]);
    }

    template <size_t M>
    CUZK_HD fp6_t pow(const limbs<M>& e) const {
        fp6_t r = one();
        for (size_t i = num_bits(e); i-- > 0;) {
            r = r.sqr();
            if (test_bit(e, i)) r *= *this;
        }
        return r;
    }

    template <class Rng>
    static fp6_t random(Rng& rng) {
        fp2_t a = fp2_t::random(rng);
        fp2_t b = fp2_t::random(rng);
        return fp6_t(a, b, fp2_t::random(rng));
    }
};

}  // namespace cuzk::ff
