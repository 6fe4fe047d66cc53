// Fp2 = Fp[u]/(u^2 + 1): the coordinate field of G2.
#pragma once

#include "common/ff/bls12_381.hpp"

namespace cuzk::ff {

struct fp2_t {
    fp_t c0, c1;  // c0 + c1 * u

    constexpr fp2_t() = default;
    CUZK_HD constexpr fp2_t(const fp_t& a, const fp_t& b) : c0(a), c1(b) {}

    static constexpr fp2_t zero() { return fp2_t(); }
    static constexpr fp2_t one() { return fp2_t(fp_t::one(), fp_t::zero()); }

    CUZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    CUZK_HD bool is_one() const { return c0.is_one() && c1.is_zero(); }
    CUZK_HD friend bool operator==(const fp2_t& a, const fp2_t& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
    CUZK_HD friend bool operator!=(const fp2_t& a, const fp2_t& b) { return !(a == b); }

    CUZK_HD_INLINE fp2_t& operator+=(const fp2_t& b) {
        c0 += b.c0;
        c1 += b.c1;
        return *this;
    }
    CUZK_HD_INLINE fp2_t& operator-=(const fp2_t& b) {
        c0 -= b.c0;
        c1 -= b.c1;
        return *this;
    }
    // Karatsuba: 3 Fp multiplications.
    CUZK_HD_INLINE fp2_t& operator*=(const fp2_t& b) {
        fp_t aa = c0 * b.c0;
        fp_t bb = c1 * b.c1;
        fp_t s = (c0 + c1) * (b.c0 + b.c1);
        c0 = aa - bb;
        c1 = s - aa - bb;
        return *this;
    }
    CUZK_HD_INLINE fp2_t& operator*=(const fp_t& b) {
        c0 *= b;
        c1 *= b;
        return *this;
    }
    CUZK_HD_INLINE friend fp2_t operator+(fp2_t a, const fp2_t& b) { return a += b; }
    CUZK_HD_INLINE friend fp2_t operator-(fp2_t a, const fp2_t& b) { return a -= b; }
    CUZK_HD_INLINE friend fp2_t operator*(fp2_t a, const fp2_t& b) { return a *= b; }
    CUZK_HD_INLINE friend fp2_t operator*(fp2_t a, const fp_t& b) { return a *= b; }
    CUZK_HD_INLINE fp2_t operator-() const { return fp2_t(-c0, -c1); }

    CUZK_HD_INLINE fp2_t dbl() const { return fp2_t(c0.dbl(), c1.dbl()); }
    // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 Fp multiplications.
    CUZK_HD_INLINE fp2_t sqr() const {
        fp_t a = (c0 + c1) * (c0 - c1);
        fp_t b = c0 * c1;
        return fp2_t(a, b.dbl());
    }
    // Multiplication by the sextic non-residue xi = 1 + u (the Fp6 and twist constant).
    CUZK_HD_INLINE fp2_t mul_by_nonresidue() const { return fp2_t(c0 - c1, c0 + c1); }
    CUZK_HD fp2_t conjugate() const { return fp2_t(c0, -c1); }
    // x -> x^p is conjugation because u^p = -u.
    CUZK_HD fp2_t frobenius_map(unsigned power) const { return (power & 1) ? conjugate() : *this; }
    CUZK_HD fp_t norm() const { return c0.sqr() + c1.sqr(); }
    CUZK_HD fp2_t inverse() const {
        fp_t t = norm().inverse();
        return fp2_t(c0 * t, -(c1 * t));
    }

    template <size_t M>
    CUZK_HD fp2_t pow(const limbs<M>& e) const {
        fp2_t r = one();
        for (size_t i = num_bits(e); i-- > 0;) {
            r = r.sqr();
            if (test_bit(e, i)) r *= *this;
        }
        return r;
    }

    // Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez, algorithm 9); false when none exists.
    CUZK_HD bool sqrt(fp2_t& out) const {
        if (is_zero()) {
            out = zero();
            return true;
        }
        limbs<6> e = fp_t::MODULUS;  // (p - 3) / 4
        limbs<6> three{};
        three[0] = 3;
        sub_borrow(e, three);
        e = shr1(shr1(e));
        fp2_t a1 = pow(e);
        fp2_t alpha = a1.sqr() * *this;
        fp2_t a0 = alpha.frobenius_map(1) * alpha;
        fp2_t minus_one = -one();
        if (a0 == minus_one) return false;
        fp2_t x0 = a1 * *this;
        fp2_t x;
        if (alpha == minus_one) {
            x = fp2_t(-x0.c1, x0.c0);  // u * x0
        } else {
            limbs<6> h = fp_t::minus_one_repr();  // (p - 1) / 2
            h = shr1(h);
            x = (alpha + one()).pow(h) * x0;
        }
        if (x.sqr() != *this) return false;
        out = x;
        return true;
    }

    // zcash ordering for Fp2: compare c1 first, then c0 when c1 is zero.
    CUZK_HD bool is_lexicographically_largest() const {
        return c1.is_lexicographically_largest() || (c1.is_zero() && c0.is_lexicographically_largest());
    }

    template <class Rng>
    static fp2_t random(Rng& rng) {
        fp_t a = fp_t::random(rng);
        return fp2_t(a, fp_t::random(rng));
    }
};

}  // namespace cuzk::ff
