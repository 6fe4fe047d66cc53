// Bucket accumulation of the GPU MSM (msm_run.cuh): the sorted (bucket, point) pairs (msm_sort.cuh) are cut
// into fixed-length chunks, one per thread, so every thread does the same number of additions whatever the
// bucket sizes; each chunk leaves whole buckets, a head and a tail (chunk_results, msm_pairs.cuh), and the
// split buckets are finished after (msm_split.cuh). Two ways to sum a chunk, chosen per group and size
// (msm_window.hpp, affine_runs_pay): mixed XYZZ additions (accumulate_xyzz_kernel, G1 below the threshold),
// or batch-affine rounds before the XYZZ additions (msm_batch_affine.cuh; G2 always, G1 from the threshold on).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpud/cuda/curve.cuh"
#include "gpud/cuda/msm_pairs.cuh"

namespace cuzk::cuda {

// G1's XYZZ accumulation: the next pair's point loaded before the current addition, the field
// multiplications inlined (fp_inlined_t), 128 pairs per thread: the fastest of a sweep on an H200 (2^24
// random: 113.7 ms against 116.8 with the multiplications called and 119.8 without the prefetch; registers
// capped for 3 or 4 blocks per SM lost more to spills than the extra warps won; docs/benchmarks-history.md). G2 takes
// the
// batch-affine rounds always (msm_batch_affine.cuh), 19 % faster than the plain XYZZ kernel at 2^24 on an
// H200 (303 against 375 ms; an Fp2 multiplication costs three Fp ones, so G2 saves three times as much per
// pass over memory); G1 takes them where runs per bucket are long (msm_window.hpp).
constexpr unsigned XYZZ_CHUNK = 128;
// Batch-affine rounds: 128-pair chunks (on an H200: 2^24 84.0 ms against 86.8 with 64-pair chunks, half the
// chunk boundaries, so half the split buckets and chunk totals to invert; 256-pair chunks with four mark
// words, tried and reverted, 80.8 against 80.0 at 2^24, 290.5 against 289.5 at 2^26). Rounds, on an H200
// with the lockstep walks: G1 4 (2^24 80.2 ms against 80.65 with 3; 2^26 289.8 against 290.0), G2 6 (2^24
// 267.8 ms; 271.4 with 5, 276.0 with 4, 270.5 with 7, 272.7 with 8; 272.7 with 6 in a later run: the G2
// figure moves by ~2 % between runs).
constexpr unsigned AFFINE_CHUNK = 128;
constexpr unsigned G1_AFFINE_ROUNDS = 4, G2_AFFINE_ROUNDS = 6;
// The scratch of one batch of sorted pairs (the rounds run with two scratch sets): 2^26 pairs for G1 (148
// bytes each: the point's slots, its key, half a product in each of two product buffers), 2^25 for G2 (on an
// H200: 2^24 through multiples splits into 3 batches instead of 4, 80.2 ms against 81.2 with 4 rounds; 2^26
// 290.0 against 291.8; the partition's B_G2 gets what the G1 sets leave).
constexpr size_t BATCH_AFFINE_BYTES = (size_t(1) << 26) * (96 + 4 + 48);
constexpr unsigned BATCH_AFFINE_THREADS = 128;
// How the batches' kernels are sequenced, per group (msm_run.cuh, accumulate_batch_affine), on an H200. G1:
// each batch's rest beside the next batch's round-0 pairs in one launch (rest_and_pairs_kernel), each later
// round's pairs in a pass of their own (2^24 through multiples 92.1 ms; 95.3 with the batches alternating
// between two streams instead, 95.8 with the pairs also made in the sums' walks, 99.1 with neither). G2: the
// batches alternating between two streams, one batch's inversions and kernel tails beside the other's
// kernels, the pairs in passes of their own (306.2 ms at 2^24; 322.4 with the rest beside the next pairs,
// 320.0 with neither; its sums kernels spill with the pairs made in them).
// The sums' walks (msm_batch_affine.cuh, "Lockstep"): in lockstep for G2 in every round and for G1 in the
// rounds after round 0; G1's round 0 step by step (3 rounds: G1 2^24 87.7 ms with every round in lockstep
// against 81.5 step by step, 2^26 314.7 against 292.3; with 4 rounds the later rounds in lockstep 80.0 against
// 80.4 at 2^24 and 288.5 against 289.5 at 2^26; G2 2^24 276.8 against 278.1). The pairs' and the rests' walks
// are always in lockstep (the rounds' pairs 6.5 -> 4.6 ms at 2^24).
// G1's round-0 sums with their registers capped at 128 (pair_sums_capped_kernel: 16 warps per SM against 12
// at 140 registers, 36 bytes spilled): 2^27 random 633.5 ms against 636.5, 2^24 through multiples 79.2
// against 79.6, 2^26 286.1 against 287.6, 2^27 PoRep-like 116.3 against 116.8, the partition's kernels
// 1,449.2 against 1,454.9 (1,453.6 in a later run: within the noise there). Capping the later rounds' sums
// too (128 to 136 registers uncapped) lost: 2^27 641.7 ms (644.9 without round 0's). Two chunks per thread in
// the sums, so that each thread multiplies in two independent chains (244 registers, 8 warps per SM), lost
// far more: 2^27 713.8 ms with the later rounds so, 765.9 with round 0, 841.0 with both.

// Thread k sums the sorted pairs [k |chunk|, (k+1) |chunk|) run by run, with mixed XYZZ additions, into
// whole buckets, a head and a tail (chunk_results, msm_pairs.cuh); the split buckets are finished after
// (msm_split.cuh). The key, value and point of pair i + 1 are loaded before the addition of pair i, so the
// gather of a random 96-byte point overlaps the arithmetic instead of stalling the thread. One block of
// ACC_THREADS per SM at least: no register cap (3 or 4 blocks, 168 or 128 registers, spilled).
// AF: the field type the kernel computes with, of the same layout as F's (fp_inlined_t for fp_t: the
// multiplications inlined rather than called).
constexpr unsigned ACC_THREADS = 128;

template <class F, class AF = F>
__global__ void __launch_bounds__(ACC_THREADS, 1)
    accumulate_xyzz_kernel(const dev_affine<F>* __restrict__ stored_points, const uint32_t* __restrict__ keys,
                           const uint32_t* __restrict__ vals, size_t total, unsigned chunk, unsigned c,
                           dev_xyzz<F>* stored_buckets, dev_xyzz<F>* stored_head, uint8_t* head_state,
                           dev_xyzz<F>* stored_tail, uint32_t* tail_bucket) {
    static_assert(sizeof(AF) == sizeof(F) && alignof(AF) == alignof(F));
    const auto* points = reinterpret_cast<const dev_affine<AF>*>(stored_points);
    using P = dev_xyzz<AF>;
    const chunk_results<P> out{reinterpret_cast<P*>(stored_buckets), reinterpret_cast<P*>(stored_head), head_state,
                               reinterpret_cast<P*>(stored_tail), tail_bucket};
    size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t s = k * chunk;
    if (s >= total) return;
    size_t e = min(total, s + chunk);
    const pair_keys pk(c);

    out.clear(k);
    uint32_t cur = keys[s];
    bool starts_here = s == 0 || keys[s - 1] != cur;
    P acc = P::identity();
    // The next pair: a zero digit's value is still a valid point index, so its load is harmless.
    uint32_t next_key = keys[s], next_val = vals[s];
    dev_affine<AF> next_point = load_affine(points + (next_val & ~NEG_FLAG));
    for (size_t i = s; i < e; ++i) {
        const uint32_t key = next_key, v = next_val;
        dev_affine<AF> p = next_point;
        if (i + 1 < e) {
            next_key = keys[i + 1];
            next_val = vals[i + 1];
            next_point = load_affine(points + (next_val & ~NEG_FLAG));
        }
        if (key != cur) {
            out.write(k, pk, cur, starts_here, true, acc);
            acc = P::identity();
            cur = key;
            starts_here = true;
        }
        if (pk.zero_digit(key)) continue;
        if (p.is_identity()) continue;
        if (v & NEG_FLAG) p.y = -p.y;
        acc.accumulate(p);
    }
    out.write(k, pk, cur, starts_here, e == total || keys[e] != cur, acc);
}

}  // namespace cuzk::cuda
