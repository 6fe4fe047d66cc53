// Split buckets of the GPU MSM: a run of one bucket's sorted pairs that crosses chunk boundaries leaves a
// tail in the chunk where it starts and a head in each later chunk it reaches (chunk_results,
// msm_pairs.cuh); these functions sum them into the bucket. The kernels below call them one chunk per
// thread; they are host and device code, so every machine tests them (tests/test_device_split_on_host.cpp).
//
// Why this shape (measured on an H200, docs/benchmarks-history.md): at 2^24 through the multiples there are 3.3M
// chunks and
// nearly every one holds a tail, but a typical bucket spans two or three chunks. Binary searches of the
// whole key array for each chunk's bounds (28 dependent loads each) and log2 passes of pairwise additions
// over every chunk took 8.7 ms of a 91.7 ms MSM. Now:
//   bounds: galloping searches from the chunk's own position (about log2(run length) loads, on cached lines);
//   short splits (the tail's run ends within SERIAL_SPAN chunks after its own): the tail's chunk adds the
//     heads in order and writes the bucket (a kernel after the bounds');
//   long splits (a bucket far heavier than the rest: a short top window, a scalar repeated): the bounds
//     kernel lists their chunks, and pairwise passes go over that list alone, log2(span) of them, then the
//     tail writes the bucket. A bucket holding every point costs ~log2(total / chunk) passes, not
//     total / chunk sequential additions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpud/cuda/msm_pairs.cuh"

namespace cuzk::cuda::split {

// A tail whose run ends at most this many chunks after its own sums the heads itself: ~8 dependent
// additions stay shorter than the pairwise passes' launches for the rare long runs.
constexpr uint32_t SERIAL_SPAN = 8;

// The first index of the run of equal keys that holds index s (keys sorted ascending): gallops back from
// s by 1, 2, 4, ... then searches the last step's interval.
CUZK_HD_INLINE size_t run_first(const uint32_t* keys, size_t s) {
    const uint32_t key = keys[s];
    size_t lo = 0, hi = s;  // keys[hi] == key; the answer is in [lo, hi]
    for (size_t step = 1; hi > 0; step *= 2) {
        if (step > hi) break;
        const size_t p = hi - step;
        if (keys[p] != key) {
            lo = p + 1;
            break;
        }
        hi = p;
    }
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] != key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The last index of the run of equal keys that holds index s, in a sorted array of |total| keys.
CUZK_HD_INLINE size_t run_last(const uint32_t* keys, size_t s, size_t total) {
    const uint32_t key = keys[s];
    size_t lo = s, hi = total - 1;  // keys[lo] == key; the answer is in [lo, hi]
    for (size_t step = 1; lo < total - 1; step *= 2) {
        if (step > total - 1 - lo) break;
        const size_t p = lo + step;
        if (keys[p] != key) {
            hi = p - 1;
            break;
        }
        lo = p;
    }
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        if (keys[mid] == key) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

// The split-bucket bookkeeping of every chunk (device or host pointers). Bounds are chunk indices: a head's
// run covers chunks head_first..head_last (head_first holds its tail), a tail's run k..tail_last.
template <class P>
struct splits {
    const uint8_t* head_state;
    const uint32_t* tail_bucket;
    uint32_t* head_first;
    uint32_t* head_last;
    uint32_t* tail_last;
    P* head;
    P* tail;
    P* buckets;

    CUZK_HD_INLINE bool long_tail(size_t k) const {
        return tail_bucket[k] != NO_BUCKET && tail_last[k] - uint32_t(k) > SERIAL_SPAN;
    }
    CUZK_HD_INLINE bool long_head(size_t k) const {
        return head_state[k] != 0 && head_last[k] - head_first[k] > SERIAL_SPAN;
    }

    CUZK_HD_INLINE bool is_long(size_t k) const { return long_tail(k) || long_head(k); }

    // Chunk k of the sorted pairs [k chunk, (k + 1) chunk): its runs' bounds. Returns how far a long tail's
    // run reaches past k (0: no long tail here).
    // A head that ends here (state 1) is its run's last partial: the passes read it but never write it
    // (nothing follows it to take in), so its bounds are not searched but set to k, which keeps it off the
    // long list.
    CUZK_HD_INLINE uint32_t bound(const uint32_t* keys, size_t total, unsigned chunk, size_t k) const {
        const size_t s = k * chunk, e = total < s + chunk ? total : s + chunk;
        if (head_state[k] == 1) {
            head_first[k] = head_last[k] = uint32_t(k);
        } else if (head_state[k] != 0) {
            head_first[k] = uint32_t(run_first(keys, s) / chunk);
            head_last[k] = uint32_t(run_last(keys, s, total) / chunk);
        }
        if (tail_bucket[k] == NO_BUCKET) return 0;
        const uint32_t last = uint32_t(run_last(keys, e - 1, total) / chunk);
        tail_last[k] = last;
        const uint32_t span = last - uint32_t(k);
        return span > SERIAL_SPAN ? span : 0;
    }
    // A short split's bucket, once bound() has run for chunk k: the tail and the heads after it, in order.
    CUZK_HD_INLINE void sum_short(size_t k) const {
        if (tail_bucket[k] == NO_BUCKET) return;
        const uint32_t last = tail_last[k];
        if (last - uint32_t(k) > SERIAL_SPAN) return;
        P acc = tail[k];
        for (size_t j = k + 1; j <= last; ++j) acc.add(head[j]);
        buckets[tail_bucket[k]] = acc;
    }

    // Pass with stride |step| over the long splits: the partial at position p = k - head_first (p = 0 is
    // the tail) takes in position p + step when p is a multiple of 2 step. Positions read (odd multiples of
    // step) are not written in this pass.
    CUZK_HD_INLINE void combine_long(size_t k, uint32_t step) const {
        if (long_tail(k) && k + step <= tail_last[k]) {
            P acc = tail[k];
            acc.add(head[k + step]);
            tail[k] = acc;
        }
        if (long_head(k)) {
            const size_t p = k - head_first[k];
            if (p % (2 * size_t(step)) == 0 && k + step <= head_last[k]) {
                P acc = head[k];
                acc.add(head[k + step]);
                head[k] = acc;
            }
        }
    }

    // After the passes: a long split's tail holds its bucket's sum.
    CUZK_HD_INLINE void write_long(size_t k) const {
        if (long_tail(k)) buckets[tail_bucket[k]] = tail[k];
    }
};

#if defined(__CUDACC__)
// ---- kernels: one thread per chunk --------------------------------------------------------------------

// The bounds of each chunk's head and tail runs; the chunks of long splits appended to |long_chunks|
// (counters[1] of them, one atomic per warp), and the longest long split's reach in counters[0] (0: no
// passes follow). Its own kernel, apart from the short splits' additions: the searches are chains of
// dependent loads that want every warp an SM holds (31 registers), the additions want registers (H200, 2^24
// through multiples: 0.54 + 3.18 ms apart against 4.68 together, at 176 registers and 12 % occupancy).
template <class P>
__global__ void split_bounds_kernel(const uint32_t* __restrict__ keys, size_t total, unsigned chunk, size_t chunks,
                                    splits<P> sp, uint32_t* counters, uint32_t* long_chunks) {
    const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= chunks) return;
    const uint32_t span = sp.bound(keys, total, chunk, k);
    if (span > 0) atomicMax(&counters[0], span);  // long tails only: rare, so one address takes few atomics
    const bool is_long = sp.is_long(k);
    const unsigned active = __activemask();
    const unsigned longs = __ballot_sync(active, is_long);
    if (longs == 0) return;
    const unsigned lane = threadIdx.x % 32, leader = __ffs(longs) - 1;
    uint32_t at = 0;
    if (lane == leader) at = atomicAdd(&counters[1], uint32_t(__popc(longs)));
    at = __shfl_sync(active, at, leader);
    if (is_long) long_chunks[at + __popc(longs & ((1u << lane) - 1))] = uint32_t(k);
}

// The short splits' buckets. Four blocks per SM (128 registers): 3.18 ms against 3.65 with the 208
// registers the inlined multiplication takes, 4.68 at 176 uncapped (G1, as above).
template <class P>
__global__ void __launch_bounds__(128, 4) sum_short_kernel(size_t chunks, splits<P> sp) {
    const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < chunks) sp.sum_short(k);
}

// One pass of the long splits' pairwise sums, over the listed chunks only.
template <class P>
__global__ void combine_pass_kernel(const uint32_t* __restrict__ long_chunks, uint32_t n, uint32_t step,
                                    splits<P> sp) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) sp.combine_long(long_chunks[i], step);
}

template <class P>
__global__ void write_split_kernel(const uint32_t* __restrict__ long_chunks, uint32_t n, splits<P> sp) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) sp.write_long(long_chunks[i]);
}
#endif

}  // namespace cuzk::cuda::split
