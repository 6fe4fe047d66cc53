// Fp2 = Fp[u]/(u^2 + 1): the coordinate field of G2.
//
// Written once over the base field F: ff::fp2_t is fp2_over<fp_t> (the CPU field), and the GPU code's Fp2 is
// fp2_over over its 32-bit-limb Fp (gpud/cuda/field.cuh). Both lay out c0 then c1, so arrays of one are
// arrays of the other. Members that need more of F than its arithmetic (pow, sqrt, the lexicographic
// order, random, the variable-time inversions) compile only for the F that has it, when used.
#pragma once

#include "common/ff/bls12_381.hpp"
#include "common/ff/hd.hpp"

namespace cuzk::ff {

template <class F>
struct fp2_over {
    F c0, c1;  // c0 + c1 * u

    constexpr fp2_over() = default;
    CUZK_HD constexpr fp2_over(const F& a, const F& b) : c0(a), c1(b) {}
    // From Fp2 over another representation of the same field (host and device, gpud/cuda/field.cuh),
    // coefficient by coefficient: explicit, as F's own conversion from G is.
    template <class G>
    CUZK_HD explicit fp2_over(const fp2_over<G>& o) : c0(o.c0), c1(o.c1) {}

    static CUZK_HD_INLINE constexpr fp2_over zero() { return fp2_over(F::zero(), F::zero()); }
    static CUZK_HD_INLINE constexpr fp2_over one() { return fp2_over(F::one(), F::zero()); }

    CUZK_HD_INLINE bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    CUZK_HD_INLINE bool is_one() const { return c0.is_one() && c1.is_zero(); }
    CUZK_HD_INLINE friend bool operator==(const fp2_over& a, const fp2_over& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
    CUZK_HD_INLINE friend bool operator!=(const fp2_over& a, const fp2_over& b) { return !(a == b); }

    CUZK_HD_INLINE friend fp2_over operator+(const fp2_over& a, const fp2_over& b) {
        return fp2_over{a.c0 + b.c0, a.c1 + b.c1};
    }
    CUZK_HD_INLINE friend fp2_over operator-(const fp2_over& a, const fp2_over& b) {
        return fp2_over{a.c0 - b.c0, a.c1 - b.c1};
    }
    // Karatsuba: 3 Fp multiplications.
    CUZK_HD_INLINE friend fp2_over operator*(const fp2_over& a, const fp2_over& b) {
        F t0 = a.c0 * b.c0;
        F t1 = a.c1 * b.c1;
        F t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
        return fp2_over{t0 - t1, t2 - t0 - t1};
    }
    CUZK_HD_INLINE friend fp2_over operator*(const fp2_over& a, const F& b) { return fp2_over{a.c0 * b, a.c1 * b}; }
    CUZK_HD_INLINE fp2_over& operator+=(const fp2_over& b) { return *this = *this + b; }
    CUZK_HD_INLINE fp2_over& operator-=(const fp2_over& b) { return *this = *this - b; }
    CUZK_HD_INLINE fp2_over& operator*=(const fp2_over& b) { return *this = *this * b; }
    CUZK_HD_INLINE fp2_over& operator*=(const F& b) { return *this = *this * b; }
    CUZK_HD_INLINE fp2_over operator-() const { return fp2_over{-c0, -c1}; }

    CUZK_HD_INLINE fp2_over dbl() const { return fp2_over{c0.dbl(), c1.dbl()}; }
    // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 Fp multiplications.
    CUZK_HD_INLINE fp2_over sqr() const {
        F t = c0 * c1;
        return fp2_over{(c0 + c1) * (c0 - c1), t.dbl()};
    }
    // Multiplication by the sextic non-residue xi = 1 + u (the Fp6 and twist constant).
    CUZK_HD_INLINE fp2_over mul_by_nonresidue() const { return fp2_over(c0 - c1, c0 + c1); }
    CUZK_HD fp2_over conjugate() const { return fp2_over(c0, -c1); }
    // x -> x^p is conjugation because u^p = -u.
    CUZK_HD fp2_over frobenius_map(unsigned power) const { return (power & 1) ? conjugate() : *this; }
    CUZK_HD F norm() const { return c0.sqr() + c1.sqr(); }
    // 1 / x = conj(x) / norm(x): one inversion in F. The inverse of zero is zero.
    CUZK_HD fp2_over inverse() const {
        F t = (c0.sqr() + c1.sqr()).inverse();
        return fp2_over{c0 * t, -(c1 * t)};
    }
    // The same through F's variable-time inversions (the device field's; for public values only).
    CUZK_HD fp2_over inverse_binary() const {
        F t = (c0.sqr() + c1.sqr()).inverse_binary();
        return fp2_over{c0 * t, -(c1 * t)};
    }
    CUZK_HD fp2_over inverse_fast() const {
        F t = (c0.sqr() + c1.sqr()).inverse_fast();
        return fp2_over{c0 * t, -(c1 * t)};
    }

    template <size_t M>
    CUZK_HD fp2_over pow(const limbs<M>& e) const {
        fp2_over r = one();
        for (size_t i = num_bits(e); i-- > 0;) {
            r = r.sqr();
            if (test_bit(e, i)) r *= *this;
        }
        return r;
    }

    // Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez, algorithm 9); false when none exists.
    CUZK_HD bool sqrt(fp2_over& out) const {
        if (is_zero()) {
            out = zero();
            return true;
        }
        typename F::repr_t e = F::MODULUS;  // (p - 3) / 4
        typename F::repr_t three{};
        three[0] = 3;
        sub_borrow(e, three);
        e = shr1(shr1(e));
        fp2_over a1 = pow(e);
        fp2_over alpha = a1.sqr() * *this;
        fp2_over a0 = alpha.frobenius_map(1) * alpha;
        fp2_over minus_one = -one();
        if (a0 == minus_one) return false;
        fp2_over x0 = a1 * *this;
        fp2_over x;
        if (alpha == minus_one) {
            x = fp2_over(-x0.c1, x0.c0);  // u * x0
        } else {
            typename F::repr_t h = F::minus_one_repr();  // (p - 1) / 2
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
    static fp2_over random(Rng& rng) {
        F a = F::random(rng);
        return fp2_over(a, F::random(rng));
    }
};

using fp2_t = fp2_over<fp_t>;

}  // namespace cuzk::ff
