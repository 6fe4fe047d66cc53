// Extended Jacobian "XYZZ" coordinates for a = 0 curves: x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2
// (ZZ = z^2, ZZZ = z^3 for some z). ZZ = 0 is the identity. These are the MSM bucket coordinates:
// adding an affine point costs 8M + 2S (madd-2008-s) against 7M + 4S plus more additions for
// Jacobian madd-2007-bl, and adding two buckets costs 12M + 2S (add-2008-s).
// Formulas from the EFD shortw/xyzz family, specialised to a = 0.
#pragma once

#include "common/ec/jacobian.hpp"

// The point formulas are a few hundred instructions each once the field code is inlined: keeping
// them out of line on the host costs a call (~1 ns against ~0.3 us of arithmetic) and keeps every
// caller, G2 instantiations especially, small and quick to compile.
#if defined(__CUDACC__)
#define CUZK_EC_OUTLINE
#else
#define CUZK_EC_OUTLINE __attribute__((noinline))
#endif

namespace cuzk::ec {

template <class F>
struct xyzz_t {
    F x, y, zz, zzz;  // identity when zz == 0

    static constexpr CUZK_HD xyzz_t identity() { return xyzz_t(); }
    static CUZK_HD xyzz_t from_affine(const affine_t<F>& a) {
        xyzz_t p = identity();
        if (!a.infinity) {
            p.x = a.x;
            p.y = a.y;
            p.zz = F::one();
            p.zzz = F::one();
        }
        return p;
    }
    CUZK_HD bool is_identity() const { return zz.is_zero(); }

    // Jacobian (X ZZ, Y ZZZ, ZZ): with z_J = ZZ, X_J = x ZZ^2 = X ZZ and
    // Y_J = y ZZ^3 = (Y / ZZZ) ZZZ^2 = Y ZZZ, using ZZ^3 = ZZZ^2. 2M.
    CUZK_HD jacobian_t<F> to_jacobian() const {
        jacobian_t<F> r;
        if (is_identity()) return r;
        r.x = x * zz;
        r.y = y * zzz;
        r.z = zz;
        return r;
    }
    CUZK_HD static xyzz_t from_jacobian(const jacobian_t<F>& p) {
        xyzz_t r = identity();
        if (p.is_identity()) return r;
        r.zz = p.z.sqr();
        r.zzz = r.zz * p.z;
        r.x = p.x;
        r.y = p.y;
        return r;
    }

    CUZK_HD xyzz_t operator-() const {
        xyzz_t r = *this;
        r.y = -y;
        return r;
    }

    // The affine-point steps take any point type with x, y and is_identity(): affine_t<F> here, and the
    // GPU's packed affine points (gpud/cuda/curve.cuh), which instantiate these same formulas on the device.

    // 2 * affine point (mdbl-2008-s): 4M + 3S, with ZZ = V and ZZZ = W.
    template <class A>
    CUZK_HD CUZK_EC_OUTLINE static xyzz_t dbl_affine(const A& a) {
        xyzz_t r = identity();
        if (a.is_identity() || a.y.is_zero()) return r;
        F u = a.y.dbl();
        F v = u.sqr();
        F w = u * v;
        F s = a.x * v;
        F xx = a.x.sqr();
        F m = xx.dbl() + xx;
        r.x = m.sqr() - s.dbl();
        r.y = m * (s - r.x) - w * a.y;
        r.zz = v;
        r.zzz = w;
        return r;
    }

    // this = 2 * this (dbl-2008-s-1 with a = 0): 6M + 3S.
    CUZK_HD CUZK_EC_OUTLINE void dbl_in_place() {
        if (is_identity()) return;
        F u = y.dbl();
        F v = u.sqr();
        F w = u * v;
        F s = x * v;
        F xx = x.sqr();
        F m = xx.dbl() + xx;
        F x3 = m.sqr() - s.dbl();
        y = m * (s - x3) - w * y;
        x = x3;
        zz *= v;
        zzz *= w;
    }

    // this += affine point (madd-2008-s): 8M + 2S. The bucket accumulation step of Pippenger.
    template <class A>
    CUZK_HD CUZK_EC_OUTLINE void accumulate(const A& q) {
        if (q.is_identity()) return;
        if (is_identity()) {
            x = q.x;
            y = q.y;
            zz = F::one();
            zzz = F::one();
            return;
        }
        F p = q.x * zz - x;
        F r = q.y * zzz - y;
        if (p.is_zero()) {
            if (r.is_zero()) {
                *this = dbl_affine(q);
            } else {
                *this = identity();
            }
            return;
        }
        F pp = p.sqr();
        F ppp = p * pp;
        F qq = x * pp;
        F x3 = r.sqr() - ppp - qq.dbl();
        y = r * (qq - x3) - y * ppp;
        x = x3;
        zz *= pp;
        zzz *= ppp;
    }
    // this -= affine point, without materialising the negated point.
    CUZK_HD void accumulate_neg(const affine_t<F>& q) {
        if (q.infinity) return;
        affine_t<F> n = q;
        n.y = -q.y;
        accumulate(n);
    }

    // this += q for q in XYZZ (add-2008-s): 12M + 2S. Bucket reduction uses this.
    CUZK_HD CUZK_EC_OUTLINE void add(const xyzz_t& q) {
        if (q.is_identity()) return;
        if (is_identity()) {
            *this = q;
            return;
        }
        F u1 = x * q.zz;
        F u2 = q.x * zz;
        F s1 = y * q.zzz;
        F s2 = q.y * zzz;
        F p = u2 - u1;
        F r = s2 - s1;
        if (p.is_zero()) {
            if (r.is_zero()) {
                dbl_in_place();
            } else {
                *this = identity();
            }
            return;
        }
        F pp = p.sqr();
        F ppp = p * pp;
        F qq = u1 * pp;
        F x3 = r.sqr() - ppp - qq.dbl();
        y = r * (qq - x3) - s1 * ppp;
        x = x3;
        zz = zz * q.zz * pp;
        zzz = zzz * q.zzz * ppp;
    }

    // k * this for a small k, most significant bit first: bits(k) doublings, popcount(k) additions (the GPU's
    // bucket reduction weights segment sums with it).
    CUZK_HD xyzz_t mul_small(uint32_t k) const {
        xyzz_t r = identity();
        int top = 31;
        while (top > 0 && !((k >> top) & 1)) --top;
        for (int b = top; b >= 0; --b) {
            r.dbl_in_place();
            if ((k >> b) & 1) r.add(*this);
        }
        return r;
    }
};

using g1_xyzz_t = xyzz_t<fp_t>;
using g2_xyzz_t = xyzz_t<fp2_t>;

}  // namespace cuzk::ec
