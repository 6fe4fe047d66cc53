// Fp12 = Fp6[w]/(w^2 - v): the pairing target field, in the tower noble and zkcrypto use, so the
// twelve Fp coordinates c{0,1}.c{0,1,2}.c{0,1} compare one to one with theirs.
// Costs are counted in Fp2 multiplications (M2) and squarings (S2).
#pragma once

#include "common/ff/fp6.hpp"

namespace cuzk::ff {

struct fp12_t {
    fp6_t c0, c1;  // c0 + c1 w

    constexpr fp12_t() = default;
    CUZK_HD constexpr fp12_t(const fp6_t& a, const fp6_t& b) : c0(a), c1(b) {}

    static constexpr fp12_t zero() { return fp12_t(); }
    static constexpr fp12_t one() { return fp12_t(fp6_t::one(), fp6_t()); }

    CUZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    CUZK_HD bool is_one() const { return c0.is_one() && c1.is_zero(); }
    CUZK_HD friend bool operator==(const fp12_t& a, const fp12_t& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
    CUZK_HD friend bool operator!=(const fp12_t& a, const fp12_t& b) { return !(a == b); }

    CUZK_HD_INLINE fp12_t& operator+=(const fp12_t& b) {
        c0 += b.c0;
        c1 += b.c1;
        return *this;
    }
    CUZK_HD_INLINE fp12_t& operator-=(const fp12_t& b) {
        c0 -= b.c0;
        c1 -= b.c1;
        return *this;
    }
    // Karatsuba: 3 Fp6 products = 18 M2.
    CUZK_TOWER_OP fp12_t& operator*=(const fp12_t& b) {
        fp6_t t0 = c0 * b.c0;
        fp6_t t1 = c1 * b.c1;
        fp6_t r1 = (c0 + c1) * (b.c0 + b.c1) - t0 - t1;
        c0 = t0 + t1.mul_by_nonresidue();
        c1 = r1;
        return *this;
    }
    CUZK_HD_INLINE friend fp12_t operator+(fp12_t a, const fp12_t& b) { return a += b; }
    CUZK_HD_INLINE friend fp12_t operator-(fp12_t a, const fp12_t& b) { return a -= b; }
    CUZK_HD_INLINE friend fp12_t operator*(fp12_t a, const fp12_t& b) { return a *= b; }
    CUZK_HD_INLINE fp12_t operator-() const { return fp12_t(-c0, -c1); }

    // Complex squaring: (c0 + c1 w)^2 = (c0 + c1)(c0 + v c1) - t - v t + 2t w with t = c0 c1;
    // 2 Fp6 products = 12 M2.
    CUZK_TOWER_OP fp12_t sqr() const {
        fp6_t t = c0 * c1;
        fp6_t s = (c0 + c1) * (c0 + c1.mul_by_nonresidue());
        return fp12_t(s - t - t.mul_by_nonresidue(), t.dbl());
    }

    // Conjugation over Fp6, i.e. x -> x^(p^6). On the cyclotomic subgroup (every pairing value after
    // the easy part of the final exponentiation) this is the inverse.
    CUZK_HD fp12_t conjugate() const { return fp12_t(c0, -c1); }

    // 1 / (c0 + c1 w) = (c0 - c1 w) / (c0^2 - v c1^2). The inverse of zero is zero.
    CUZK_TOWER_OP fp12_t inverse() const {
        fp6_t t = (c0.sqr() - c1.sqr().mul_by_nonresidue()).inverse();
        return fp12_t(c0 * t, -(c1 * t));
    }

    // Product by a line value o0 + o1 v + o4 v w, nonzero only at the coefficients 0, 1 and 4 of
    // (1, v, v^2, w, v w, v^2 w): the M-type twist's line shape. 13 M2 instead of 18.
    CUZK_TOWER_OP fp12_t mul_by_014(const fp2_t& o0, const fp2_t& o1, const fp2_t& o4) const {
        fp6_t t0 = c0.mul_by_01(o0, o1);
        fp6_t t1 = c1.mul_by_1(o4);
        fp6_t r1 = (c0 + c1).mul_by_01(o0, o1 + o4) - t0 - t1;
        return fp12_t(t0 + t1.mul_by_nonresidue(), r1);
    }

    // x -> x^(p^power): each Fp6 half maps itself, and w goes to gamma_k w.
    fp12_t frobenius_map(unsigned power) const {
        const tower_frobenius& t = tower_frobenius::get();
        unsigned k = power % 12;
        fp6_t a = c0.frobenius_map(k);
        fp6_t b = c1.frobenius_map(k) * t.gamma1[k];
        return fp12_t(a, b);
    }

    // Granger-Scott squaring, valid only in the cyclotomic subgroup (elements whose order divides
    // p^4 - p^2 + 1, where conj f = f^-1): 9 S2 instead of 12 M2. View Fp12 as Fp4[w]/(w^3 - s) with
    // Fp4 = Fp2[s]/(s^2 - xi), s = v w; then f = z0 + z1 w + z2 w^2 with z0 = (c0.c0, c1.c1),
    // z1 = (c1.c0, c0.c2), z2 = (c0.c1, c1.c2), and
    //   f^2 = (3 z0^2 - 2 conj z0) + (3 s z2^2 + 2 conj z1) w + (3 z1^2 - 2 conj z2) w^2.
    CUZK_TOWER_OP fp12_t cyclotomic_sqr() const {
        fp2_t a0, a1, b0, b1, d0, d1;
        fp4_sqr(c0.c0, c1.c1, a0, a1);  // z0^2
        fp4_sqr(c1.c0, c0.c2, b0, b1);  // z1^2
        fp4_sqr(c0.c1, c1.c2, d0, d1);  // z2^2
        // 3 t - 2 z for the component that is not negated by conj, 3 t + 2 z for the one that is.
        auto minus = [](const fp2_t& t, const fp2_t& z) { return (t - z).dbl() + t; };
        auto plus = [](const fp2_t& t, const fp2_t& z) { return (t + z).dbl() + t; };
        fp12_t r;
        r.c0.c0 = minus(a0, c0.c0);
        r.c1.c1 = plus(a1, c1.c1);
        r.c1.c0 = plus(d1.mul_by_nonresidue(), c1.c0);  // s z2^2 = (xi d1, d0)
        r.c0.c2 = minus(d0, c0.c2);
        r.c0.c1 = minus(b0, c0.c1);
        r.c1.c2 = plus(b1, c1.c2);
        return r;
    }

    // this^e for |e| given as a 64-bit word, by cyclotomic squarings (cyclotomic subgroup only).
    CUZK_HD fp12_t cyclotomic_pow(uint64_t e) const {
        fp12_t r = one();
        bool started = false;
        for (int i = 63; i >= 0; --i) {
            if (started) r = r.cyclotomic_sqr();
            if ((e >> i) & 1) {
                r = started ? r * *this : *this;
                started = true;
            }
        }
        return r;
    }

    template <size_t M>
    CUZK_HD fp12_t pow(const limbs<M>& e) const {
        fp12_t r = one();
        for (size_t i = num_bits(e); i-- > 0;) {
            r = r.sqr();
            if (test_bit(e, i)) r *= *this;
        }
        return r;
    }

    template <class Rng>
    static fp12_t random(Rng& rng) {
        fp6_t a = fp6_t::random(rng);
        return fp12_t(a, fp6_t::random(rng));
    }

private:
    // (x + y s)^2 = (x^2 + xi y^2) + 2 x y s in Fp4 = Fp2[s]/(s^2 - xi): 3 S2.
    CUZK_HD_INLINE static void fp4_sqr(const fp2_t& x, const fp2_t& y, fp2_t& r0, fp2_t& r1) {
        fp2_t xx = fp2_sqr(x);
        fp2_t yy = fp2_sqr(y);
        r0 = xx + yy.mul_by_nonresidue();
        r1 = fp2_sqr(x + y) - xx - yy;
    }
};

}  // namespace cuzk::ff
