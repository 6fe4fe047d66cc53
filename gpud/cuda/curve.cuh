// Points of G1 (F = dev_fp) and G2 (F = dev_fp2) on the device: affine storage and XYZZ buckets.
// The formulas are those of common/ec/xyzz.hpp (EFD shortw/xyzz, a = 0): madd-2008-s 8M + 2S,
// add-2008-s 12M + 2S, dbl-2008-s-1 6M + 3S, mdbl-2008-s 4M + 3S. Layouts equal the host ones
// (affine x, y; xyzz x, y, zz, zzz), so results are copied back bit for bit.
#pragma once

#include "gpud/cuda/field.cuh"

namespace cuzk::cuda {

// Affine point as stored in device memory; the identity is x = y = 0, which is not on either curve
// (0 != 0 + b), so it cannot collide with a real point.
template <class F>
struct dev_affine {
    F x, y;
    __device__ __forceinline__ bool is_identity() const { return x.is_zero() && y.is_zero(); }
};

// Loads an affine point through the read-only cache in 16-byte pieces.
template <class F>
__device__ __forceinline__ dev_affine<F> load_affine(const dev_affine<F>* p) {
    static_assert(sizeof(dev_affine<F>) % 16 == 0, "affine point must be whole 16-byte words");
    dev_affine<F> r;
    const uint4* src = reinterpret_cast<const uint4*>(p);
    uint4* dst = reinterpret_cast<uint4*>(&r);
#pragma unroll
    for (int i = 0; i < int(sizeof(dev_affine<F>) / 16); ++i) dst[i] = __ldg(src + i);
    return r;
}

template <class F>
struct dev_xyzz {
    F x, y, zz, zzz;  // identity when zz == 0

    static __device__ __forceinline__ dev_xyzz identity() {
        dev_xyzz r;
        r.x = F::zero();
        r.y = F::zero();
        r.zz = F::zero();
        r.zzz = F::zero();
        return r;
    }
    __device__ __forceinline__ bool is_identity() const { return zz.is_zero(); }
    static __device__ __forceinline__ dev_xyzz from_affine(const dev_affine<F>& a) {
        if (a.is_identity()) return identity();
        return {a.x, a.y, F::one(), F::one()};
    }

    __device__ __forceinline__ void dbl_in_place() {
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
        zz = zz * v;
        zzz = zzz * w;
    }

    static __device__ __forceinline__ dev_xyzz dbl_affine(const dev_affine<F>& a) {
        F u = a.y.dbl();
        F v = u.sqr();
        F w = u * v;
        F s = a.x * v;
        F xx = a.x.sqr();
        F m = xx.dbl() + xx;
        dev_xyzz r;
        r.x = m.sqr() - s.dbl();
        r.y = m * (s - r.x) - w * a.y;
        r.zz = v;
        r.zzz = w;
        return r;
    }

    // this += q (q affine, not the identity).
    __device__ __forceinline__ void accumulate(const dev_affine<F>& q) {
        if (is_identity()) {
            *this = {q.x, q.y, F::one(), F::one()};
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
        zz = zz * pp;
        zzz = zzz * ppp;
    }

    // this += q for q in XYZZ.
    __device__ __forceinline__ void add(const dev_xyzz& q) {
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

    // k * this for a small non-negative k, MSB first: bits(k) doublings, popcount(k) additions.
    __device__ __forceinline__ dev_xyzz mul_small(uint32_t k) const {
        dev_xyzz r = identity();
        for (int b = 31 - __clz(k | 1); b >= 0; --b) {
            r.dbl_in_place();
            if ((k >> b) & 1) r.add(*this);
        }
        return k == 0 ? identity() : r;
    }
};

// Affine sum of two affine points with distinct x (used to make benchmark points): one inversion.
template <class F>
__device__ __forceinline__ dev_affine<F> affine_add_distinct(const dev_affine<F>& a, const dev_affine<F>& b) {
    F l = (b.y - a.y) * (b.x - a.x).inverse();
    dev_affine<F> r;
    r.x = l.sqr() - a.x - b.x;
    r.y = l * (a.x - r.x) - a.y;
    return r;
}

}  // namespace cuzk::cuda
