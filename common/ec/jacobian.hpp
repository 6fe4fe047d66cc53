// Jacobian coordinates (x = X/Z^2, y = Y/Z^3) for a = 0 curves; Z = 0 is the identity.
// Formulas: dbl-2009-l (2M + 5S), add-2007-bl (11M + 5S), madd-2007-bl (7M + 4S).
#pragma once

#include "common/ec/affine.hpp"

namespace cuzk::ec {

template <class F>
struct jacobian_t {
    F x, y, z;  // identity when z == 0

    static constexpr jacobian_t identity() { return jacobian_t(); }
    static CUZK_HD jacobian_t from_affine(const affine_t<F>& a) {
        jacobian_t p;
        if (!a.infinity) {
            p.x = a.x;
            p.y = a.y;
            p.z = F::one();
        }
        return p;
    }
    CUZK_HD bool is_identity() const { return z.is_zero(); }

    CUZK_HD affine_t<F> to_affine() const {
        if (is_identity()) return affine_t<F>::identity();
        F zi = z.inverse();
        F zi2 = zi.sqr();
        return affine_t<F>::from_xy(x * zi2, y * zi2 * zi);
    }

    CUZK_HD jacobian_t dbl() const {
        if (is_identity()) return *this;
        F a = x.sqr();
        F b = y.sqr();
        F c = b.sqr();
        F d = ((x + b).sqr() - a - c).dbl();
        F e = a.dbl() + a;
        F f = e.sqr();
        jacobian_t r;
        r.x = f - d.dbl();
        r.y = e * (d - r.x) - c.dbl().dbl().dbl();
        r.z = (y * z).dbl();
        return r;
    }

    CUZK_HD jacobian_t add(const jacobian_t& q) const {
        if (is_identity()) return q;
        if (q.is_identity()) return *this;
        F z1z1 = z.sqr();
        F z2z2 = q.z.sqr();
        F u1 = x * z2z2;
        F u2 = q.x * z1z1;
        F s1 = y * q.z * z2z2;
        F s2 = q.y * z * z1z1;
        F h = u2 - u1;
        F rr = (s2 - s1).dbl();
        if (h.is_zero()) {
            if (rr.is_zero()) return dbl();
            return identity();
        }
        F i = h.dbl().sqr();
        F j = h * i;
        F v = u1 * i;
        jacobian_t r;
        r.x = rr.sqr() - j - v.dbl();
        r.y = rr * (v - r.x) - (s1 * j).dbl();
        r.z = ((z + q.z).sqr() - z1z1 - z2z2) * h;
        return r;
    }

    CUZK_HD jacobian_t add_mixed(const affine_t<F>& q) const {
        if (q.infinity) return *this;
        if (is_identity()) return from_affine(q);
        F z1z1 = z.sqr();
        F u2 = q.x * z1z1;
        F s2 = q.y * z * z1z1;
        F h = u2 - x;
        F rr = (s2 - y).dbl();
        if (h.is_zero()) {
            if (rr.is_zero()) return dbl();
            return identity();
        }
        F hh = h.sqr();
        F i = hh.dbl().dbl();
        F j = h * i;
        F v = x * i;
        jacobian_t r;
        r.x = rr.sqr() - j - v.dbl();
        r.y = rr * (v - r.x) - (y * j).dbl();
        r.z = (z + h).sqr() - z1z1 - hh;
        return r;
    }

    CUZK_HD jacobian_t operator-() const {
        jacobian_t r = *this;
        r.y = -y;
        return r;
    }
    CUZK_HD jacobian_t operator+(const jacobian_t& q) const { return add(q); }
    CUZK_HD jacobian_t operator-(const jacobian_t& q) const { return add(-q); }

    // Projective equality: X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3.
    CUZK_HD friend bool operator==(const jacobian_t& p, const jacobian_t& q) {
        if (p.is_identity() || q.is_identity()) return p.is_identity() == q.is_identity();
        F z1z1 = p.z.sqr(), z2z2 = q.z.sqr();
        return p.x * z2z2 == q.x * z1z1 && p.y * z2z2 * q.z == q.y * z1z1 * p.z;
    }

    // [k]P for a scalar given as limbs (double and add, MSB first; not constant time: the
    // prover's secrets are blinding values that never leave the process).
    template <size_t M>
    CUZK_HD jacobian_t mul(const ff::limbs<M>& k) const {
        jacobian_t r;
        for (size_t i = ff::num_bits(k); i-- > 0;) {
            r = r.dbl();
            if (ff::test_bit(k, i)) r = r.add(*this);
        }
        return r;
    }
    CUZK_HD jacobian_t mul(const fr_t& k) const { return mul(k.to_canonical()); }
};

using g1_jacobian_t = jacobian_t<fp_t>;
using g2_jacobian_t = jacobian_t<fp2_t>;

// Converts many points with one field inversion (Montgomery's trick).
template <class F>
void batch_to_affine(const jacobian_t<F>* in, affine_t<F>* out, size_t n);

}  // namespace cuzk::ec

#include "common/ec/batch_affine.inl"
