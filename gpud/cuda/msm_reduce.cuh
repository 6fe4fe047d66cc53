// Bucket reduction of the GPU MSM (msm_run.cuh): each window's buckets to its window sum
// W = sum_(b=1..B) b S_b, in segments, then the segments' partial sums (and the one-scalars' partial sums,
// msm_ones.cuh) added up by group sums. The few window sums are combined on the host (msm_combine.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpud/cuda/curve.cuh"

namespace cuzk::cuda {

constexpr unsigned MAX_SEGMENT = 64;  // buckets per reduction thread, at most
// Segments the bucket reduction aims at: it is latency-bound below this; 2^15 rather than 2^16 (longer
// segments, less work in all) took the 2^24 reduction from 4.0 to 3.5 ms on an H200, 2^26 unchanged.
constexpr size_t REDUCE_THREADS = 1 << 15;
// Items per thread in a group sum. Each level is a chain of dependent XYZZ additions on few threads, so the
// levels' latency, ~(GROUP_SUM - 1) log_GROUP_SUM(n) additions, is what it costs: 4 takes 8 levels for
// 2^16 partials (24 additions deep), 32 took 4 (~100 deep; 1.45 ms of a 2^24 MSM on an H200).
constexpr unsigned GROUP_SUM = 4;

// out[g * out_per + t] = sum of in[g * per + t * GROUP_SUM ...] (up to GROUP_SUM items).
template <class F>
__global__ void group_sum_kernel(const dev_xyzz<F>* __restrict__ in, size_t groups, size_t per, size_t out_per,
                                 dev_xyzz<F>* out) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= groups * out_per) return;
    size_t g = t / out_per, k = t % out_per;
    size_t lo = k * GROUP_SUM, hi = min(per, lo + GROUP_SUM);
    dev_xyzz<F> acc = in[g * per + lo];
    for (size_t i = lo + 1; i < hi; ++i) acc.add(in[g * per + i]);
    out[t] = acc;
}

// Window sum W = sum_{b=1..B} b S_b, split into segments of L buckets: segment q of a window
// contributes sum_{j=1..L} (qL + j) S_(qL+j) = T + qL R with R = sum_j S, T = sum_j j S (running sums
// from the top, 2L additions), then qL R by double-and-add.
template <class F>
__global__ void reduce_segments_kernel(const dev_xyzz<F>* __restrict__ buckets, size_t windows, uint32_t B,
                                       uint32_t L, dev_xyzz<F>* out) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    uint32_t segs = B / L;
    if (t >= windows * segs) return;
    size_t w = t / segs;
    uint32_t q = uint32_t(t % segs);
    const dev_xyzz<F>* s = buckets + w * B + size_t(q) * L;
    dev_xyzz<F> run = dev_xyzz<F>::identity(), tot = dev_xyzz<F>::identity();
    for (int j = int(L) - 1; j >= 0; --j) {
        run.add(s[j]);
        tot.add(run);
    }
    if (q != 0) tot.add(run.mul_small(q * L));
    out[t] = tot;
}

}  // namespace cuzk::cuda
