// Points the GPU MSM makes on the device: benchmark points as affine sums of seed points
// (msm_context::generate_points) and the precomputed window multiples 2^(w c) P
// (msm_context::precompute_window_multiples).
#pragma once

#include <cstddef>

#include "gpud/cuda/curve.cuh"

namespace cuzk::cuda {

// out[i] = a[i mod na] + b[(i / na) mod nb], one affine addition (one inversion) per point; the seeds have
// distinct x.
template <class F>
__global__ void pair_sum_kernel(const dev_affine<F>* __restrict__ a, size_t na, const dev_affine<F>* __restrict__ b,
                                size_t nb, size_t n, dev_affine<F>* out) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = affine_add_distinct(a[i % na], b[(i / na) % nb]);
}

// next[i] = 2^c prev[i] for i < n, in affine form. A thread takes MULTIPLES_GROUP consecutive points: c
// doublings each in XYZZ, then one inversion for the group (Montgomery's trick over the ZZZs: 3
// multiplications per point) and x = X (ZZ / ZZZ)^2, y = Y / ZZZ. The identity (x = y = 0) stays the
// identity; no point of either group doubles to it (neither curve has a point of order 2 over its field).
constexpr unsigned MULTIPLES_GROUP = 16;

template <class F>
__global__ void window_multiples_kernel(const dev_affine<F>* __restrict__ prev, dev_affine<F>* next, size_t n,
                                        unsigned c) {
    size_t lo = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) * MULTIPLES_GROUP;
    if (lo >= n) return;
    const unsigned cnt = unsigned(min(size_t(MULTIPLES_GROUP), n - lo));
    dev_xyzz<F> q[MULTIPLES_GROUP];
    F prefix[MULTIPLES_GROUP];
    F run = F::one();
    for (unsigned j = 0; j < cnt; ++j) {
        q[j] = dev_xyzz<F>::dbl_affine(load_affine(prev + lo + j));
        for (unsigned d = 1; d < c; ++d) q[j].dbl_in_place();
        prefix[j] = run;
        if (!q[j].is_identity()) run = run * q[j].zzz;
    }
    F inv = run.inverse();  // 1 / (product of the group's ZZZs)
    for (unsigned j = cnt; j-- > 0;) {
        dev_affine<F> r;
        if (q[j].is_identity()) {
            r.x = F::zero();
            r.y = F::zero();
        } else {
            F zzz_inv = inv * prefix[j];
            inv = inv * q[j].zzz;
            F t = q[j].zz * zzz_inv;  // 1 / z
            r.x = q[j].x * t.sqr();
            r.y = q[j].y * zzz_inv;
        }
        next[lo + j] = r;
    }
}

}  // namespace cuzk::cuda
