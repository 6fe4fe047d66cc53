// The sum of the points whose scalar is one (classified by msm_classify.cuh), one bucket holding them all.
// Few of them: mixed XYZZ additions (sum_indexed_kernel), the partial sums added up by group sums
// (msm_reduce.cuh). Many: the batch-affine rounds of the Pippenger accumulation (msm_batch_affine.cuh) over
// one key, sequenced by msm_run.cuh (sum_ones).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpud/cuda/curve.cuh"

namespace cuzk::cuda {

// From G1_ONES_AFFINE_MIN / G2_ONES_AFFINE_MIN points on, the ones go as one bucket through the batch-affine
// rounds (~6 multiplications per point) rather than mixed XYZZ additions (10); ONES_AFFINE_ROUNDS rounds per
// 128-point chunk leave 128 / 2^rounds points per chunk to the XYZZ rest. On an H200: 60.4M G1 ones (2^27
// PoRep-like) 21.8 ms against 27.2, 15.1M G2 ones 18.1 against 24.1; 3, 4, 6 or 7 rounds within 0.6 ms of 5.
// Fewer points pay the rounds' and the split passes' launches and host waits: 473K G1 ones 2.0 ms against
// 0.6; at 7.6M (2^24 PoRep-like) a tie, the MSM 19.63 ms against 19.60. A G2 addition saves ~3x a G1 one for
// the same launches, so G2 takes the rounds from 2^22 on: 7.6M G2 ones 10.7 ms against 12.6 (2^24
// PoRep-like, 47.0 against 48.9). The partition's ones (20M to 60M per MSM) are above both thresholds.
constexpr size_t G1_ONES_AFFINE_MIN = size_t(1) << 24, G2_ONES_AFFINE_MIN = size_t(1) << 22;
constexpr unsigned ONES_AFFINE_ROUNDS = 5;

// Thread t adds the points points[idx[i]] for i in [t per_thread, (t + 1) per_thread) below |count|.
template <class F>
__global__ void sum_indexed_kernel(const dev_affine<F>* __restrict__ points, const uint32_t* __restrict__ idx,
                                   size_t count, size_t per_thread, dev_xyzz<F>* out, size_t threads) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    dev_xyzz<F> acc = dev_xyzz<F>::identity();
    size_t lo = t * per_thread, hi = min(count, lo + per_thread);
    // The next point is loaded before the current addition (as accumulate_xyzz_kernel does).
    dev_affine<F> next = load_affine(points + idx[lo]);
    for (size_t i = lo; i < hi; ++i) {
        dev_affine<F> p = next;
        if (i + 1 < hi) next = load_affine(points + idx[i + 1]);
        if (!p.is_identity()) acc.accumulate(p);
    }
    out[t] = acc;
}

}  // namespace cuzk::cuda
