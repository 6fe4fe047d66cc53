// Points of G1 (F = fp_t) and G2 (F = fp2_t: field.cuh's device fields) on the device: affine storage and
// XYZZ buckets.
// The bucket formulas are common/ec/xyzz.hpp's (EFD shortw/xyzz, a = 0: madd-2008-s 8M + 2S, add-2008-s
// 12M + 2S, dbl-2008-s-1 6M + 3S, mdbl-2008-s 4M + 3S), compiled for the device. Layouts equal the host
// ones (affine x, y; xyzz x, y, zz, zzz), so results are copied back bit for bit.
#pragma once

#include "common/ec/xyzz.hpp"
#include "gpud/cuda/field.cuh"
#include "gpud/cuda/words.cuh"

namespace cuzk::cuda {

// Affine point as stored in device memory; the identity is x = y = 0, which is not on either curve
// (0 != 0 + b), so it cannot collide with a real point.
template <class F>
struct dev_affine {
    F x, y;
    CUZK_HD_INLINE bool is_identity() const { return x.is_zero() && y.is_zero(); }
};

// Loads an affine point through the read-only cache in 16-byte words (words.cuh).
template <class F>
CUZK_HD_INLINE dev_affine<F> load_affine(const dev_affine<F>* p) {
    static_assert(sizeof(dev_affine<F>) % 16 == 0, "affine point must be whole 16-byte words");
    return load_resident(p);
}

// Buckets: the host's XYZZ template (common/ec/xyzz.hpp, __host__ __device__) instantiated with the device
// field, so the GPU runs the very formulas the CPU MSM runs; its affine steps take dev_affine points.
template <class F>
using dev_xyzz = ec::xyzz_t<F>;

// Affine sum of two affine points with distinct x (used to make benchmark points): one inversion.
template <class F>
CUZK_HD_INLINE dev_affine<F> affine_add_distinct(const dev_affine<F>& a, const dev_affine<F>& b) {
    F l = (b.y - a.y) * (b.x - a.x).inverse();
    dev_affine<F> r;
    r.x = l.sqr() - a.x - b.x;
    r.y = l * (a.x - r.x) - a.y;
    return r;
}

}  // namespace cuzk::cuda
