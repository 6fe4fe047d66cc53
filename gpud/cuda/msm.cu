// GPU multi-scalar multiplication (msm.hpp): kernels and the host side that sequences them.
#include "gpud/cuda/msm.hpp"

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "gpud/cuda/curve.cuh"
#include "gpud/cuda/device_buffer.cuh"
#include "gpud/cuda/msm_batch_affine.cuh"
#include "gpud/cuda/msm_digits.cuh"
#include "gpud/cuda/msm_combine.hpp"
#include "gpud/cuda/msm_pairs.cuh"
#include "gpud/cuda/msm_split.cuh"
#include "gpud/cuda/msm_window.hpp"
#include "gpud/cuda/words.cuh"

namespace cuzk::cuda {

namespace {

template <class HF>
struct dev_type;
template <>
struct dev_type<ff::fp_t> {
    using type = dev_fp;
};
template <>
struct dev_type<ff::fp2_t> {
    using type = dev_fp2;
};

static_assert(sizeof(dev_fp) == sizeof(ff::fp_t) && sizeof(dev_fp2) == sizeof(ff::fp2_t));
static_assert(sizeof(dev_fr) == sizeof(ff::fr_t));
static_assert(sizeof(dev_xyzz<dev_fp>) == sizeof(ec::xyzz_t<ff::fp_t>));
static_assert(sizeof(dev_xyzz<dev_fp2>) == sizeof(ec::xyzz_t<ff::fp2_t>));

constexpr unsigned MAX_SEGMENT = 64;       // buckets per reduction thread, at most
// Segments the bucket reduction aims at: it is latency-bound below this; 2^15 rather than 2^16 (longer
// segments, less work in all) took the 2^24 reduction from 4.0 to 3.5 ms on an H200, 2^26 unchanged.
constexpr size_t REDUCE_THREADS = 1 << 15;
// Defaults unless msm_options says otherwise (see accumulate_kernel). G1: prefetching with the field
// multiplications inlined, 128 pairs per thread, the fastest of the sweep on an H200 (2^24 random with the
// paired multiplication: 113.7 ms against 116.8 with calls and 119.8 for the plain kernel; the register
// caps lost more to spills than the extra warps won; BENCHMARKS.md). G2: the batch-affine rounds (variant 9,
// msm_batch_affine.cuh), 19 % faster than its plain XYZZ kernel at 2^24 on an H200 (303 against 375 ms; an
// Fp2 multiplication costs three Fp ones, so G2 saves three times as much per pass over memory). G1 takes
// them too where runs per bucket are long (msm_window.hpp).
constexpr unsigned G1_ACCUMULATE_VARIANT = 7, G1_CHUNK = 128;
constexpr unsigned G2_ACCUMULATE_VARIANT = 9, G2_CHUNK = 64;
// Variant 9: rounds per chunk, the schedule (msm_options::affine_schedule) and threads per block, and the
// scratch of one batch of sorted pairs (two scratch sets): 2^26 pairs for G1 (148 bytes each: the point's
// slots, its key, half a product in each of two product buffers), 2^25 for G2 (tenth session, H200: 2^24
// through multiples splits into 3 batches instead of 4, 80.2 ms against 81.2 with 4 rounds; 2^26 290.0 against
// 291.8; the partition's B_G2 gets what the G1 sets leave). G1: each batch's rest beside the next batch's
// first pairs, each round's pairs in a pass of their own (2^24 through multiples 92.1 ms in the seventh
// session; 95.3 with two streams instead, 95.8 with both fusions, 99.1 with neither). G2: two streams, no
// fusion (306.2 ms at 2^24 then; 322.4 with the fused rest, 320.0 with neither; its sums kernels spill with
// the pairs made in them).
// Sums walks in lockstep (msm_batch_affine.cuh, "Lockstep"; schedule bit 16 for round 0, 32 for the rounds
// after it): G2 in every round; G1 in the rounds after round 0 only (tenth session, H200, 3 rounds: G1 2^24
// 87.7 ms with every round in lockstep against 81.5 step by step, 2^26 314.7 against 292.3; with 4 rounds
// the later rounds in lockstep 80.0 against 80.4 at 2^24 and 288.5 against 289.5 at 2^26; G2 2^24 276.8
// against 278.1). The pairs' and the rests' walks are always in lockstep (the rounds' pairs 6.5 -> 4.6 ms at
// 2^24).
// Pairs per chunk and rounds: 128-pair chunks (ninth session: 2^24 84.0 ms against 86.8 with 64-pair chunks,
// half the chunk boundaries, so half the split buckets and chunk totals to invert; tenth session: 256-pair
// chunks with four mark words, tried and reverted, 80.8 against 80.0 at 2^24, 290.5 against 289.5 at 2^26).
// Rounds (tenth session, H200, with the lockstep walks, G1 schedule 5): G1 4 (2^24 80.2 ms against 80.65 with
// 3; 2^26 289.8 against 290.0), G2 6 (2^24 267.8 ms; 271.4 with 5, 276.0 with 4, 270.5 with 7, 272.7 with 8;
// 272.7 with 6 in a later run: the G2 figure moves by ~2 % between runs).
// G1's round-0 sums with their registers capped at 128 (bit 64, pair_sums_capped_kernel: 16 warps per SM
// against 12 at 140 registers, 36 bytes spilled; schedule 101 = 37 + 64), twelfth session, H200: 2^27 random
// 633.5 ms against 636.5, 2^24 through multiples 79.2 against 79.6, 2^26 286.1 against 287.6, 2^27
// PoRep-like 116.3 against 116.8, the partition's kernels 1,449.2 against 1,454.9 (1,453.6 in a later run with
// 101 as the default: within the noise there). Capping the later rounds' sums too (128 to 136 registers
// uncapped) lost: 2^27 641.7 ms (644.9 without round 0's). Two chunks per thread in the sums, so that each
// thread multiplies in two independent chains (244 registers, 8 warps per SM), lost far more: 2^27 713.8 ms
// with the later rounds so, 765.9 with round 0, 841.0 with both.
constexpr unsigned G1_AFFINE_CHUNK = 128, G2_AFFINE_CHUNK = 128;
constexpr unsigned G1_AFFINE_ROUNDS = 4, G2_AFFINE_ROUNDS = 6;
constexpr unsigned G1_AFFINE_SCHEDULE = 101, G2_AFFINE_SCHEDULE = 60, BATCH_AFFINE_THREADS = 128;
constexpr size_t BATCH_AFFINE_BYTES = (size_t(1) << 26) * (96 + 4 + 48);
// The one-scalars' sum (sum_ones): from G1_ONES_AFFINE_MIN / G2_ONES_AFFINE_MIN points on, as one bucket
// through the batch-affine rounds (~6 multiplications per point) rather than mixed XYZZ additions (10);
// ONES_AFFINE_ROUNDS rounds per 128-point chunk leave 128 / 2^rounds points per chunk to the XYZZ rest.
// Fourteenth session, H200: 60.4M G1 ones (2^27 PoRep-like) 21.8 ms against 27.2, 15.1M G2 ones 18.1
// against 24.1; 3, 4, 6 or 7 rounds within 0.6 ms of 5. Fewer points pay the rounds' and the split
// passes' launches and host waits: 473K G1 ones 2.0 ms against 0.6; at 7.6M (2^24 PoRep-like) a tie, the
// MSM 19.63 ms against 19.60. A G2 addition saves ~3x a G1 one for the same launches, so G2 takes the
// rounds from 2^22 on: 7.6M G2 ones 10.7 ms against 12.6 (2^24 PoRep-like, 47.0 against 48.9). The
// partition's ones (20M to 60M per MSM) are above both thresholds.
constexpr size_t G1_ONES_AFFINE_MIN = size_t(1) << 24, G2_ONES_AFFINE_MIN = size_t(1) << 22;
constexpr unsigned ONES_AFFINE_ROUNDS = 5;
// Items per thread in a group sum. Each level is a chain of dependent XYZZ additions on few threads, so the
// levels' latency, ~(GROUP_SUM - 1) log_GROUP_SUM(n) additions, is what it costs: 4 takes 8 levels for
// 2^16 partials (24 additions deep), 32 took 4 (~100 deep; 1.45 ms of a 2^24 MSM on an H200).
constexpr unsigned GROUP_SUM = 4;

// ---- classification: zero / one / other, compacted with one atomic per block and counter -------

// Each block takes CLASSIFY_THREADS x CLASSIFY_ITEMS consecutive scalars, loaded striped (item j of thread t
// at j CLASSIFY_THREADS + t: a warp reads 1 KB in a row), and places its ones and others by a block scan
// of the per-thread counts, so each counter takes one atomic per block. With one atomic per warp and counter
// the two counters' atomics, serialised at one address each, were the kernel's cost (H200, fourteenth
// session: 8.4 ms for 2^27 PoRep-like scalars, whose warps all hold both kinds, ~5 for random ones). The
// order within a block's outputs is not the scalars' order, nor was the blocks' before; no result
// depends on it.
constexpr unsigned CLASSIFY_THREADS = 256, CLASSIFY_ITEMS = 4;

// counters[0] = ones, counters[1] = others, with their indices in one_idx and other_idx. The others' scalars
// are not copied: digits_kernel reads them through other_idx (a copy of their canonical forms took 32 bytes
// per scalar of scratch, 4.3 GB for the H MSM, which the G2 MSM's scratch limit then lacked).
__global__ void __launch_bounds__(CLASSIFY_THREADS)
    classify_kernel(const dev_fr* __restrict__ scalars, size_t n, uint32_t* counters, uint32_t* one_idx,
                    uint32_t* other_idx) {
    // Counts packed as (ones << 16) | others: a block's totals are at most 1024 each.
    using block_scan = cub::BlockScan<uint32_t, CLASSIFY_THREADS>;
    __shared__ typename block_scan::TempStorage scan_temp;
    __shared__ uint32_t base[2];
    const size_t tile = size_t(blockIdx.x) * CLASSIFY_THREADS * CLASSIFY_ITEMS;
    uint32_t packed[CLASSIFY_ITEMS], at[CLASSIFY_ITEMS];
    CUZK_UNROLL
    for (unsigned j = 0; j < CLASSIFY_ITEMS; ++j) {
        const size_t i = tile + j * CLASSIFY_THREADS + threadIdx.x;
        packed[j] = 0;
        if (i < n) {
            const dev_fr s = load_resident(scalars + i);
            packed[j] = s.is_one() ? 1u << 16 : s.is_zero() ? 0 : 1;
        }
    }
    uint32_t total;
    block_scan(scan_temp).ExclusiveSum(packed, at, total);
    if (threadIdx.x == 0) {
        base[0] = total >> 16 ? atomicAdd(&counters[0], total >> 16) : 0;
        base[1] = total & 0xffff ? atomicAdd(&counters[1], total & 0xffff) : 0;
    }
    __syncthreads();
    CUZK_UNROLL
    for (unsigned j = 0; j < CLASSIFY_ITEMS; ++j) {
        const uint32_t i = uint32_t(tile + j * CLASSIFY_THREADS + threadIdx.x);
        if (packed[j] >> 16) {
            one_idx[base[0] + (at[j] >> 16)] = i;
        } else if (packed[j]) {
            other_idx[base[1] + (at[j] & 0xffff)] = i;
        }
    }
}

// ---- sum of the points whose scalar is one ------------------------------------------------------

template <class F>
__global__ void sum_indexed_kernel(const dev_affine<F>* __restrict__ points, const uint32_t* __restrict__ idx,
                                   size_t count, size_t per_thread, dev_xyzz<F>* out, size_t threads) {
    size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    dev_xyzz<F> acc = dev_xyzz<F>::identity();
    size_t lo = t * per_thread, hi = min(count, lo + per_thread);
    // The next point is loaded before the current addition (as accumulate_kernel's PREFETCH does).
    dev_affine<F> next = load_affine(points + idx[lo]);
    for (size_t i = lo; i < hi; ++i) {
        dev_affine<F> p = next;
        if (i + 1 < hi) next = load_affine(points + idx[i + 1]);
        if (!p.is_identity()) acc.accumulate(p);
    }
    out[t] = acc;
}

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

// ---- Pippenger ------------------------------------------------------------------------------------

// Signed digits (msm_digits.cuh) in the windows of |split|. Key: (w << c) | (|d| - 1), or (w << c) | B for
// d = 0 (c the window's width, B = 2^(c-1): sorted last in its window and skipped); value: point index,
// NEG_FLAG for d < 0. Only windows [w0, w0 + group) are written (a pass of run(), whose windows have one
// width: the carries still come from window 0 up), as pass-local windows 0, 1, ...: keys[(w - w0) m + i]
// with the window field w - w0.
// With precomputed multiples (|stride| != 0: window w's multiples 2^(w c) P start at w |stride|), every
// window's digits go to one set of buckets: the key drops the window and the value names the multiple,
// point + w |stride| (+ |first|, the run's first resident point).
// |scalars|: the run's (Montgomery form), read through |idx|, the others' indices (classify_kernel).
__global__ void digits_kernel(const dev_fr* __restrict__ scalars, const uint32_t* __restrict__ idx, size_t m,
                              window_split split, unsigned w0, unsigned group, uint32_t* keys,
                              uint32_t* vals, uint32_t stride, uint32_t first) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const uint32_t j = idx[i];
    const dev_fr s = load_resident(scalars + j).from_montgomery();  // canonical digits
    const uint32_t point = j + first;
    const unsigned c = split.width(w0);
    const uint32_t B = 1u << (c - 1);
    uint32_t carry = 0;
    const unsigned end = w0 + group;  // the windows above the pass need no digits (nor carries)
    for (unsigned w = 0; w < end; ++w) {
        const signed_digit d = window_digit_at(s.v, split.bit(w), split.width(w), carry);
        const uint32_t key = d.magnitude == 0 ? B : d.magnitude - 1;
        const uint32_t val = (point + w * stride) | (d.negative ? NEG_FLAG : 0);
        if (w < w0 || w >= w0 + group) continue;
        keys[size_t(w - w0) * m + i] = stride ? key : (uint32_t(w - w0) << c) | key;
        vals[size_t(w - w0) * m + i] = val;
    }
}

// Thread k sums the sorted pairs [k |chunk|, (k+1) |chunk|) run by run, with mixed XYZZ additions, into
// whole buckets, a head and a tail (chunk_results, msm_pairs.cuh); the split buckets are finished after
// (msm_split.cuh).
//
// Two tuning parameters (msm_options::accumulate_variant): MIN_BLOCKS, the blocks of ACC_THREADS threads
// the compiler must fit on one SM (3 or 4 cap the registers at 168 or 128 per thread: more warps to hide
// the latency of the carry chains and the point loads, against spills), and PREFETCH: the key, value and
// point of pair i + 1 are loaded before the addition of pair i, so the gather of a random 96-byte point
// (192 for G2) overlaps the arithmetic instead of stalling the thread.
constexpr unsigned ACC_THREADS = 128;

// A third (AF): the field type the kernel computes with, of the same layout as F's (dev_fp_inlined for
// dev_fp: the multiplications inlined rather than called).
template <class F, int MIN_BLOCKS, bool PREFETCH, class AF = F>
__global__ void __launch_bounds__(ACC_THREADS, MIN_BLOCKS)
    accumulate_kernel(const dev_affine<F>* __restrict__ stored_points, const uint32_t* __restrict__ keys,
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
    // The next pair (PREFETCH): a zero digit's value is still a valid point index, so its load is harmless.
    uint32_t next_key = 0, next_val = 0;
    dev_affine<AF> next_point;
    if constexpr (PREFETCH) {
        next_key = keys[s];
        next_val = vals[s];
        next_point = load_affine(points + (next_val & ~NEG_FLAG));
    }
    for (size_t i = s; i < e; ++i) {
        uint32_t key, v;
        dev_affine<AF> p;
        if constexpr (PREFETCH) {
            key = next_key;
            v = next_val;
            p = next_point;
            if (i + 1 < e) {
                next_key = keys[i + 1];
                next_val = vals[i + 1];
                next_point = load_affine(points + (next_val & ~NEG_FLAG));
            }
        } else {
            key = keys[i];
        }
        if (key != cur) {
            out.write(k, pk, cur, starts_here, true, acc);
            acc = P::identity();
            cur = key;
            starts_here = true;
        }
        if (pk.zero_digit(key)) continue;
        if constexpr (!PREFETCH) {
            v = vals[i];
            p = load_affine(points + (v & ~NEG_FLAG));
        }
        if (p.is_identity()) continue;
        if (v & NEG_FLAG) p.y = -p.y;
        acc.accumulate(p);
    }
    out.write(k, pk, cur, starts_here, e == total || keys[e] != cur, acc);
}

// Split buckets (msm_split.cuh), one chunk per thread: the bounds of each chunk's head and tail runs; the
// chunks of long splits appended to |long_chunks| (counters[1] of them, one atomic per warp), and the
// longest long split's reach in counters[0] (0: no passes follow). Its own kernel, apart from the short
// splits' additions: the searches are chains of dependent loads that want every warp an SM holds (31
// registers), the additions want registers (H200, 2^24 through multiples: 0.54 + 3.18 ms apart against
// 4.68 together, at 176 registers and 12 % occupancy).
template <class P>
__global__ void split_bounds_kernel(const uint32_t* __restrict__ keys, size_t total, unsigned chunk, size_t chunks,
                                    split::splits<P> sp, uint32_t* counters, uint32_t* long_chunks) {
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
__global__ void __launch_bounds__(128, 4) sum_short_kernel(size_t chunks, split::splits<P> sp) {
    const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < chunks) sp.sum_short(k);
}

// One pass of the long splits' pairwise sums, over the listed chunks only.
template <class P>
__global__ void combine_pass_kernel(const uint32_t* __restrict__ long_chunks, uint32_t n, uint32_t step,
                                    split::splits<P> sp) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) sp.combine_long(long_chunks[i], step);
}

template <class P>
__global__ void write_split_kernel(const uint32_t* __restrict__ long_chunks, uint32_t n, split::splits<P> sp) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) sp.write_long(long_chunks[i]);
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

// ---- benchmark points -----------------------------------------------------------------------------

template <class F>
__global__ void pair_sum_kernel(const dev_affine<F>* __restrict__ a, size_t na, const dev_affine<F>* __restrict__ b,
                                size_t nb, size_t n, dev_affine<F>* out) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = affine_add_distinct(a[i % na], b[(i / na) % nb]);
}

// ---- precomputed window multiples ----------------------------------------------------------------

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

}  // namespace

template <class F>
struct msm_context<F>::impl {
    using DF = typename dev_type<F>::type;
    using point_t = dev_affine<DF>;
    using bucket_t = dev_xyzz<DF>;

    int device;
    cudaStream_t stream = nullptr;
    size_t n_points = 0;
    size_t base = 0;  // first resident point of the run in progress (run_uploaded_range)
    // The resident points, then (when multiples_c != 0) window w's multiples 2^(w c) P_i at w n_points + i
    // for w < multiples_windows (precompute_window_multiples).
    device_buffer<point_t> points;
    unsigned multiples_c = 0, multiples_windows = 0;
    size_t scratch_limit = 0;  // set_scratch_limit; 0: none
    size_t run_n = 0;          // scalars of the run_at in progress (a segment's, with host points)
    size_t ones_held = 0;      // the run's ones_scratch (0 when its ones are summed by XYZZ additions)
    // use_host_points: the points in host memory (the caller's, page-locked), |points| then two device buffers
    // of |segment| points each; null: the points resident in |points|.
    const point_t* host_points = nullptr;
    size_t segment = 0;
    cudaStream_t copy_stream = nullptr;
    cudaEvent_t copied[2] = {};
    device_buffer<dev_fr> scalars;
    size_t n_scalars = 0;
    // Scalars in device memory the context does not own (use_scalars_device), read instead of |scalars|; null
    // after an upload.
    const dev_fr* external_scalars = nullptr;
    const dev_fr* run_scalars() const { return external_scalars ? external_scalars : scalars.get(); }
    device_buffer<uint32_t> counters, one_idx, other_idx;
    device_buffer<uint32_t> keys, vals, keys_sorted, vals_sorted;
    device_buffer<uint8_t> sort_temp, head_state;
    device_buffer<bucket_t> buckets, head, tail, partial, partial2;
    device_buffer<uint32_t> tail_bucket, head_first, head_last, tail_last, long_chunks;
    // Batch-affine rounds' scratch (msm_batch_affine.cuh).
    device_buffer<uint4> ba_points, ba_products;
    device_buffer<uint32_t> ba_keys, ba_count;
    device_buffer<uint64_t> ba_paired;
    device_buffer<DF> ba_totals, ba_inverses;
    cudaEvent_t events[7] = {};
    cudaStream_t stream2 = nullptr;  // the batch-affine rounds' second stream (affine_schedule bit 8), made on first use
    cudaEvent_t fork = nullptr, join = nullptr;

    // Every scratch buffer (all but the points and the uploaded scalars), one call of |v| each: the one list
    // release_scratch and scratch_bytes go through.
    template <class V>
    void for_each_scratch(V&& v) {
        v(counters), v(one_idx), v(other_idx), v(keys), v(vals), v(keys_sorted), v(vals_sorted);
        v(sort_temp), v(head_state), v(buckets), v(head), v(tail), v(partial), v(partial2);
        v(tail_bucket), v(head_first), v(head_last), v(tail_last), v(long_chunks);
        v(ba_points), v(ba_products), v(ba_keys), v(ba_count), v(ba_paired), v(ba_totals), v(ba_inverses);
    }
    // Frees the scratch of earlier runs (it grows again on the next run): before the window multiples'
    // table, the largest allocation a context makes, so it does not have to fit beside scratch sized for
    // another window width.
    void release_scratch() {
        for_each_scratch([](auto& b) { b.release(); });
    }

    explicit impl(int dev) : device(dev) {
        CUDA_OK(cudaSetDevice(device));
        CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    }
    ~impl() {
        for (auto e : events) {
            if (e) cudaEventDestroy(e);
        }
        for (auto e : copied) {
            if (e) cudaEventDestroy(e);
        }
        if (copy_stream) cudaStreamDestroy(copy_stream);
        for (auto e : affine_events) cudaEventDestroy(e);
        if (fork) cudaEventDestroy(fork);
        if (join) cudaEventDestroy(join);
        if (stream2) cudaStreamDestroy(stream2);
        if (stream) cudaStreamDestroy(stream);
    }

    // Phase boundaries for msm_options::timing: 0 start, 1 classified, 2 ones summed, 3 sorted,
    // 4 buckets complete, 5 window sums, 6 end.
    bool timing = false;
    void mark(int i) {
        if (timing) CUDA_OK(cudaEventRecord(events[i], stream));
    }
    // msm_report::ms_affine: an event after each batch-affine launch (one stream), named by the kind of
    // kernel it closes; the events are a pool kept for the next runs.
    std::vector<cudaEvent_t> affine_events;
    std::vector<int> affine_kinds;  // per recorded event; -1 for the opening one
    bool affine_timing = false;
    void affine_mark(int kind, cudaStream_t st) {
        if (!affine_timing) return;
        if (affine_kinds.size() == affine_events.size()) {
            cudaEvent_t e;
            CUDA_OK(cudaEventCreate(&e));
            affine_events.push_back(e);
        }
        CUDA_OK(cudaEventRecord(affine_events[affine_kinds.size()], st));
        affine_kinds.push_back(kind);
    }
    // After the pass's events are complete: the times between consecutive marks, added up by kind.
    void collect_affine_times(msm_report& rep) {
        for (size_t i = 1; i < affine_kinds.size(); ++i) {
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, affine_events[i - 1], affine_events[i]));
            rep.ms_affine[affine_kinds[i]] += ms;
        }
        affine_kinds.clear();
    }

    // Sums |groups| runs of |per| items in |partial| down to one item per group, alternating between
    // |partial| and |partial2|; returns where the sums are.
    bucket_t* group_sums(size_t groups, size_t per) {
        bucket_t* src = partial.get();
        while (per > 1) {
            size_t out_per = (per + GROUP_SUM - 1) / GROUP_SUM;
            bucket_t* dst = src == partial.get() ? partial2.get() : partial.get();
            group_sum_kernel<DF><<<grid_for(groups * out_per, 128), 128, 0, stream>>>(src, groups, per, out_per, dst);
            CUDA_LAUNCH_OK("group_sum_kernel");
            src = dst;
            per = out_per;
        }
        return src;
    }

    template <int MIN_BLOCKS, bool PREFETCH, class AF = DF>
    void launch_accumulate_as(size_t chunks, const point_t* pts, size_t total, unsigned chunk, unsigned c) {
        accumulate_kernel<DF, MIN_BLOCKS, PREFETCH, AF><<<grid_for(chunks, ACC_THREADS), ACC_THREADS, 0, stream>>>(
            pts, keys_sorted.get(), vals_sorted.get(), total, chunk, c, buckets.get(), head.get(), head_state.get(),
            tail.get(), tail_bucket.get());
    }
    // Variant 9 (msm_batch_affine.cuh): |rounds| batch-affine pair rounds per chunk, then the rest by XYZZ
    // additions. Chunks go through in batches of at most |batch_pairs| sorted pairs, so the scratch (~148
    // bytes per pair for G1) stays bounded whatever the MSM's size, with two scratch sets when there are
    // several batches. |schedule| (msm_options::affine_schedule) says how the batches' kernels are sequenced:
    // on one stream, a batch's rest in the launch of the next batch's round-0 pairs (bit 1), or alternating
    // between two streams (bit 8), one batch's memory- and latency-bound kernels beside the other's
    // multiplications; batches write disjoint chunks' results, so |stream| only waits for both at the end.
    void accumulate_batch_affine(size_t chunks, const point_t* pts, size_t total, unsigned chunk, unsigned c,
                                 unsigned rounds, size_t batch_pairs, unsigned schedule, unsigned threads,
                                 unsigned invert_group) {
        namespace ba = batch_affine;
        using AF = std::conditional_t<std::is_same_v<DF, dev_fp>, dev_fp_inlined, DF>;
        if (chunk > ba::MAX_CHUNK) {
            throw std::invalid_argument("GPU MSM: batch-affine accumulation takes at most " +
                                        std::to_string(ba::MAX_CHUNK) + " pairs per chunk, not " +
                                        std::to_string(chunk));
        }
        if (threads == 0 || threads % 32 != 0 || threads > 1024) {
            throw std::invalid_argument("GPU MSM: batch-affine threads per block must be a multiple of 32 up to 1024, not " +
                                        std::to_string(threads));
        }
        constexpr int W = words_of<DF>;
        const size_t segs = std::min(chunks, std::max<size_t>(1, batch_pairs / chunk));
        const size_t slots = segs * chunk, pair_slots = segs * std::max(1u, chunk / 2);
        // Two scratch sets when there are several batches: one batch's rest runs beside the next one's
        // round-0 pairs (rest_and_pairs_kernel).
        const int sets = chunks > segs ? 2 : 1;
        ba_points.reserve(sets * 2 * W * slots);
        ba_keys.reserve(sets * slots);
        ba_products.reserve(sets * 2 * W * pair_slots);
        ba_count.reserve(sets * segs);
        ba_paired.reserve(sets * ba::MARK_WORDS * segs);
        ba_totals.reserve(sets * segs);
        ba_inverses.reserve(sets * segs);
        ba::scratch sc[2];
        for (int i = 0; i < sets; ++i) {
            sc[i].chunk = chunk;
            sc[i].segs = segs;
            sc[i].slots = slots;
            sc[i].pair_slots = pair_slots;
            sc[i].points = ba_points.get() + i * 2 * W * slots;
            sc[i].keys = ba_keys.get() + i * slots;
            sc[i].products[0] = ba_products.get() + (2 * i) * W * pair_slots;
            sc[i].products[1] = ba_products.get() + (2 * i + 1) * W * pair_slots;
            sc[i].count = ba_count.get() + i * segs;
            sc[i].paired = ba_paired.get() + i * ba::MARK_WORDS * segs;
        }
        const auto* apts = reinterpret_cast<const dev_affine<AF>*>(pts);
        using P = dev_xyzz<AF>;
        const chunk_results<P> out{reinterpret_cast<P*>(buckets.get()), reinterpret_cast<P*>(head.get()),
                                   head_state.get(), reinterpret_cast<P*>(tail.get()), tail_bucket.get()};
        const uint32_t *ks = keys_sorted.get(), *vs = vals_sorted.get();
        const unsigned T = threads;
        const bool fuse_rest = schedule & 1, fuse_pairs = schedule & 2;
        // Without the fused rest, batches may alternate between two streams (bit 8), so one batch's
        // inversions and kernel tails overlap the other's kernels.
        const bool two_streams = (schedule & 8) && !fuse_rest && sets == 2;
        if (two_streams && !stream2) {
            CUDA_OK(cudaStreamCreateWithFlags(&stream2, cudaStreamNonBlocking));
            CUDA_OK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
            CUDA_OK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
        }
        // Round r's sums kernel: whether it is round 0, whether it makes the next round's pairs, its direction.
        auto sums = [&](unsigned r, const ba::scratch& s, size_t k0, size_t nseg, const AF* inverses, AF* totals,
                        cudaStream_t st) {
            const unsigned grid = grid_for(nseg, T);
            const bool next = r + 1 < rounds && fuse_pairs;
            const bool lockstep = (schedule & (r == 0 ? 16 : 32)) != 0;
            const bool capped = r == 0 && (schedule & 64) != 0;
            auto launch = [&]<bool FIRST, bool NEXT, bool FORWARD>() {
                if constexpr (is_g1 && FIRST && !NEXT) {
                    if (capped) {
                        if (lockstep)
                            ba::pair_sums_capped_kernel<AF, FIRST, NEXT, FORWARD, true>
                                <<<grid, T, 0, st>>>(s, apts, ks, vs, total, k0, nseg, c, r, inverses, totals);
                        else
                            ba::pair_sums_capped_kernel<AF, FIRST, NEXT, FORWARD, false>
                                <<<grid, T, 0, st>>>(s, apts, ks, vs, total, k0, nseg, c, r, inverses, totals);
                        return;
                    }
                }
                if (lockstep)
                    ba::pair_sums_kernel<AF, FIRST, NEXT, FORWARD, true>
                        <<<grid, T, 0, st>>>(s, apts, ks, vs, total, k0, nseg, c, r, inverses, totals);
                else
                    ba::pair_sums_kernel<AF, FIRST, NEXT, FORWARD, false>
                        <<<grid, T, 0, st>>>(s, apts, ks, vs, total, k0, nseg, c, r, inverses, totals);
            };
            if (r == 0) {
                if (next) launch.template operator()<true, true, true>();
                else launch.template operator()<true, false, true>();
            } else if (ba::walks_forward(r)) {
                if (next) launch.template operator()<false, true, true>();
                else launch.template operator()<false, false, true>();
            } else {
                if (next) launch.template operator()<false, true, false>();
                else launch.template operator()<false, false, false>();
            }
            CUDA_LAUNCH_OK("pair_sums_kernel");
            affine_mark(msm_report::AFFINE_SUMS, st);
            if (r + 1 < rounds && !fuse_pairs) {
                if (ba::walks_forward(r)) {
                    ba::pair_products_slots_kernel<AF, true><<<grid, T, 0, st>>>(s, total, k0, nseg, r + 1, totals);
                } else {
                    ba::pair_products_slots_kernel<AF, false><<<grid, T, 0, st>>>(s, total, k0, nseg, r + 1, totals);
                }
                CUDA_LAUNCH_OK("pair_products_slots_kernel");
                affine_mark(msm_report::AFFINE_PAIRS, st);
            }
        };
        auto rest = [&](int set, size_t k0, size_t nseg, cudaStream_t st) {
            ba::accumulate_rest_kernel<AF><<<grid_for(nseg, T), T, 0, st>>>(sc[set], ks, total, k0, nseg, c, rounds, out);
            CUDA_LAUNCH_OK("accumulate_rest_kernel");
            affine_mark(msm_report::AFFINE_REST, st);
        };
        if (two_streams) {
            CUDA_OK(cudaEventRecord(fork, stream));
            CUDA_OK(cudaStreamWaitEvent(stream2, fork, 0));
        }
        affine_timing = timing && !two_streams;
        affine_kinds.clear();
        affine_mark(-1, stream);
        size_t prev_k0 = 0, prev_nseg = 0;
        int prev = -1;
        for (size_t k0 = 0, b = 0; k0 < chunks; k0 += segs, ++b) {
            const int i = int(b % 2);
            const cudaStream_t st = two_streams && i == 1 ? stream2 : stream;
            auto* totals = reinterpret_cast<AF*>(ba_totals.get() + i * segs);
            auto* inverses = reinterpret_cast<AF*>(ba_inverses.get() + i * segs);
            const size_t nseg = std::min(segs, chunks - k0);
            const unsigned grid = grid_for(nseg, T);
            if (prev >= 0 && fuse_rest) {
                const unsigned rest_grid = grid_for(prev_nseg, T);
                ba::rest_and_pairs_kernel<AF><<<rest_grid + grid, T, 0, st>>>(
                    sc[prev], prev_k0, prev_nseg, rounds, out, sc[i], apts, ks, vs, total, k0, nseg, c, totals,
                    rest_grid, grid);
                CUDA_LAUNCH_OK("rest_and_pairs_kernel");
            } else {
                if (prev >= 0 && !two_streams) rest(prev, prev_k0, prev_nseg, st);
                ba::pair_products_kernel<AF><<<grid, T, 0, st>>>(sc[i], apts, ks, vs, total, k0, nseg, c, totals);
                CUDA_LAUNCH_OK("pair_products_kernel");
            }
            affine_mark(msm_report::AFFINE_FIRST_PAIRS, st);
            for (unsigned r = 0; r < rounds; ++r) {
                ba::invert_totals_kernel<AF><<<grid_for(nseg, T * invert_group), T, 0, st>>>(totals, inverses, nseg,
                                                                                               invert_group);
                CUDA_LAUNCH_OK("invert_totals_kernel");
                affine_mark(msm_report::AFFINE_INVERT, st);
                sums(r, sc[i], k0, nseg, inverses, totals, st);
            }
            if (two_streams) rest(i, k0, nseg, st);
            prev = i;
            prev_k0 = k0;
            prev_nseg = nseg;
        }
        if (two_streams) {
            CUDA_OK(cudaEventRecord(join, stream2));
            CUDA_OK(cudaStreamWaitEvent(stream, join, 0));
        } else {
            rest(prev, prev_k0, prev_nseg, stream);
        }
    }

    // msm_options::accumulate_variant; G2 has the plain kernel (1) and 9 (each variant is a separate compilation).
    static constexpr bool is_g1 = std::is_same_v<DF, dev_fp>;
    // The default for G1 depends on the pairs to accumulate and their runs per bucket (AFFINE_PAIRS,
    // AFFINE_RUN).
    static bool affine_by_default(size_t pairs, size_t buckets) {
        return !is_g1 || affine_runs_pay(pairs, buckets);
    }
    static unsigned variant_of(const msm_options& opt, size_t pairs = 0, size_t buckets = 1) {
        if (opt.accumulate_variant) return opt.accumulate_variant;
        if (!is_g1) return G2_ACCUMULATE_VARIANT;
        return affine_by_default(pairs, buckets) ? 9 : G1_ACCUMULATE_VARIANT;
    }
    // |pass_bytes|: what the run and this pass hold beside the accumulation (fixed_scratch, window_scratch).
    void launch_accumulate(unsigned variant, const msm_options& opt, size_t chunks, const point_t* pts, size_t total,
                           unsigned chunk, unsigned c, size_t pass_bytes) {
        // Variant 9's scratch per sorted pair: the point slots (x, y), the key and half a product in each of
        // two product buffers (a round's and the next one's).
        constexpr size_t ba_pair_bytes = sizeof(point_t) + 4 + sizeof(DF);
        const unsigned rounds = opt.affine_rounds ? opt.affine_rounds : is_g1 ? G1_AFFINE_ROUNDS : G2_AFFINE_ROUNDS;
        const unsigned schedule = opt.affine_schedule ? opt.affine_schedule
                                  : is_g1             ? G1_AFFINE_SCHEDULE
                                                      : G2_AFFINE_SCHEDULE;
        const unsigned threads = opt.affine_threads ? opt.affine_threads : BATCH_AFFINE_THREADS;
        const unsigned group = opt.affine_invert_group ? opt.affine_invert_group : batch_affine::INVERT_GROUP;
        // Under a scratch limit, the batches' two scratch sets take what the pass leaves of it (at least an
        // eighth of it, as scratch_estimate counts on; at most their size without a limit). Why not an eighth
        // always: the partition's B_G2 (44M points, 4.4M random, 70M sorted pairs) had a 7.7 GiB limit on an
        // H200, and sets of 1.8M pairs made 40 batches whose launches filled under half of the GPU.
        const size_t ba_left = scratch_limit > pass_bytes ? (scratch_limit - pass_bytes) / 2 : 0;
        const size_t ba_bytes =
            scratch_limit ? std::min(BATCH_AFFINE_BYTES, std::max(ba_left, scratch_limit / 16)) : BATCH_AFFINE_BYTES;
        const size_t batch =
            opt.affine_batch_pairs ? opt.affine_batch_pairs : std::max<size_t>(1, ba_bytes / ba_pair_bytes);
        if constexpr (is_g1) {
            switch (variant) {
                case 1: return launch_accumulate_as<1, false>(chunks, pts, total, chunk, c);
                case 2: return launch_accumulate_as<1, true>(chunks, pts, total, chunk, c);
                case 3: return launch_accumulate_as<3, true>(chunks, pts, total, chunk, c);
                case 4: return launch_accumulate_as<4, true>(chunks, pts, total, chunk, c);
                case 5: return launch_accumulate_as<4, false>(chunks, pts, total, chunk, c);
                case 6: return launch_accumulate_as<1, false, dev_fp_inlined>(chunks, pts, total, chunk, c);
                case 7: return launch_accumulate_as<1, true, dev_fp_inlined>(chunks, pts, total, chunk, c);
                case 8: return launch_accumulate_as<3, true, dev_fp_inlined>(chunks, pts, total, chunk, c);
                case 9: return accumulate_batch_affine(chunks, pts, total, chunk, c, rounds, batch, schedule, threads, group);
                default: break;
            }
        } else {
            if (variant == 1) return launch_accumulate_as<1, false>(chunks, pts, total, chunk, c);
            if (variant == 9) return accumulate_batch_affine(chunks, pts, total, chunk, c, rounds, batch, schedule, threads, group);
        }
        throw std::invalid_argument("GPU MSM: no accumulation variant " + std::to_string(variant) + " for this group");
    }

    // Windows per Pippenger pass under scratch_limit, for |m| scalars through Pippenger at width |c|. What a
    // run of n scalars holds whatever the passes: the scalars and the classification's indices (40 bytes per
    // scalar), one window's sort scratch (~8 bytes per pair); per window of a pass: the
    // keys and values, unsorted and sorted (16 bytes per pair), the chunk results of the smallest default
    // chunks (two buckets and 21 bytes per chunk) and the window's buckets. At least one window per pass, whatever the limit.
    static size_t fixed_scratch(size_t n, size_t m) { return n * (sizeof(dev_fr) + 8) + m * 8; }
    static size_t window_scratch(size_t m, unsigned c) {
        constexpr size_t smallest_chunk = std::min({G1_CHUNK, G1_AFFINE_CHUNK, G2_CHUNK, G2_AFFINE_CHUNK});
        return m * (16 + (2 * sizeof(bucket_t) + 21) / smallest_chunk + 1) +
               (size_t(1) << (c - 1)) * sizeof(bucket_t);
    }
    // The one-scalars' batch-affine sum (sum_ones) grows buffers the passes reuse: its sorted keys and values
    // and its chunks' results. Counted beside the passes' own (windows_per_pass, the passes' batch-affine
    // sets), so a run stays under the limit whichever phase grew a buffer most.
    static size_t ones_scratch(size_t ones) {
        const size_t chunks = (ones + G1_AFFINE_CHUNK - 1) / G1_AFFINE_CHUNK;
        return ones * 2 * sizeof(uint32_t) + chunks * (2 * sizeof(bucket_t) + 21);
    }
    unsigned windows_per_pass(size_t m, unsigned c, unsigned windows) const {
        if (scratch_limit == 0) return windows;
        const size_t fixed = fixed_scratch(run_n, m) + ones_held;
        const size_t fit = scratch_limit > fixed ? (scratch_limit - fixed) / window_scratch(m, c) : 0;
        return unsigned(std::clamp<size_t>(fit, 1, windows));
    }

    // The sum of the points whose scalar is one, as an XYZZ bucket in device memory. Few of them: mixed XYZZ
    // additions, ~16 per thread, the partial sums reduced on the device. Many (|affine|): the points as one
    // bucket through the batch-affine rounds, the sorted pairs being all key 0 (bucket 0 of window 0 at any
    // width) with the points' indices as values, and the split-bucket passes joining the chunks' results
    // (H200, 2^27 PoRep-like scalars, 60.4M ones: 27.2 ms by XYZZ additions; BENCHMARKS.md, fourteenth
    // session). |pass_bytes|: what the run holds beside the rounds' scratch (launch_accumulate).
    bucket_t* sum_ones(const msm_options& opt, const point_t* pts, size_t ones, bool affine, size_t pass_bytes) {
        if (!affine) {
            // Enough warps to hide the latency of the chained additions: at most 2^17 threads.
            size_t threads = std::min<size_t>(size_t(1) << 17, (ones + 15) / 16);
            const size_t per_thread = (ones + threads - 1) / threads;
            threads = (ones + per_thread - 1) / per_thread;
            partial.reserve(std::max<size_t>(threads, 1));
            partial2.reserve(std::max<size_t>((threads + GROUP_SUM - 1) / GROUP_SUM, 1));
            sum_indexed_kernel<DF><<<grid_for(threads, 128), 128, 0, stream>>>(pts, one_idx.get(), ones, per_thread,
                                                                               partial.get(), threads);
            CUDA_LAUNCH_OK("sum_indexed_kernel");
            return group_sums(1, threads);
        }
        constexpr unsigned chunk = is_g1 ? G1_AFFINE_CHUNK : G2_AFFINE_CHUNK, key_bits = 2;
        keys_sorted.reserve(ones);
        vals_sorted.reserve(ones);
        CUDA_OK(cudaMemsetAsync(keys_sorted.get(), 0, ones * sizeof(uint32_t), stream));
        CUDA_OK(cudaMemcpyAsync(vals_sorted.get(), one_idx.get(), ones * sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                                stream));
        buckets.reserve(1);
        CUDA_OK(cudaMemsetAsync(buckets.get(), 0, sizeof(bucket_t), stream));  // zz = 0: identity
        const size_t chunks = (ones + chunk - 1) / chunk;
        head.reserve(chunks);
        tail.reserve(chunks);
        head_state.reserve(chunks);
        tail_bucket.reserve(chunks);
        msm_options o = opt;
        o.affine_rounds = opt.ones_affine_rounds ? opt.ones_affine_rounds : ONES_AFFINE_ROUNDS;
        launch_accumulate(9, o, chunks, pts, ones, chunk, key_bits, pass_bytes);
        CUDA_LAUNCH_OK("batch-affine ones");
        affine_kinds.clear();  // msm_report::ms_affine times the Pippenger passes' rounds only
        finish_split_buckets(ones, chunk, chunks);
        return buckets.get();
    }

    // The split buckets (msm_split.cuh) of an accumulation of |total| sorted pairs in |chunks| chunks of
    // |chunk|: bounds, the short splits' sums, the long splits' pairwise passes; afterwards every bucket
    // is whole in |buckets|.
    void finish_split_buckets(size_t total, unsigned chunk, size_t chunks) {
        head_first.reserve(chunks);
        head_last.reserve(chunks);
        tail_last.reserve(chunks);
        const split::splits<bucket_t> sp{head_state.get(), tail_bucket.get(), head_first.get(), head_last.get(),
                                         tail_last.get(),   head.get(),        tail.get(),       buckets.get()};
        long_chunks.reserve(chunks);
        CUDA_OK(cudaMemsetAsync(counters.get(), 0, 2 * sizeof(uint32_t), stream));
        split_bounds_kernel<<<grid_for(chunks, 128), 128, 0, stream>>>(keys_sorted.get(), total, chunk, chunks, sp,
                                                                       counters.get(), long_chunks.get());
        CUDA_LAUNCH_OK("split_bounds_kernel");
        sum_short_kernel<<<grid_for(chunks, 128), 128, 0, stream>>>(chunks, sp);
        CUDA_LAUNCH_OK("sum_short_kernel");
        uint32_t longs[2] = {};  // the longest long split's reach, the chunks listed
        CUDA_OK(cudaMemcpyAsync(longs, counters.get(), sizeof longs, cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        if (longs[1] > 0) {
            for (uint32_t step = 1; step <= longs[0]; step *= 2) {
                combine_pass_kernel<<<grid_for(longs[1], 128), 128, 0, stream>>>(long_chunks.get(), longs[1], step, sp);
                CUDA_LAUNCH_OK("combine_pass_kernel");
            }
            write_split_kernel<<<grid_for(longs[1], 128), 128, 0, stream>>>(long_chunks.get(), longs[1], sp);
            CUDA_LAUNCH_OK("write_split_kernel");
        }
    }

    // One pass of Pippenger over windows [w0, w0 + group) of |windows| (all of them with the multiples), in two
    // halves: sort_pass makes the digits and sorts them (the sorted pairs depend on the scalars alone), then
    // accumulate_pass, once per point range, accumulates, joins the split buckets and reduces, appending the
    // pass's window sums to |host_sums|.
    void sort_pass(const dev_fr* sc, size_t m, const window_split& split, unsigned w0, unsigned group,
                   bool multiples) {
        const unsigned c = split.width(w0);
        const unsigned sum_windows = multiples ? 1 : group;  // sets of buckets
        const size_t total = size_t(group) * m;
        keys.reserve(total);
        vals.reserve(total);
        keys_sorted.reserve(total);
        vals_sorted.reserve(total);
        digits_kernel<<<grid_for(m, 256), 256, 0, stream>>>(sc, other_idx.get(), m, split,
                                                             w0, group, keys.get(), vals.get(),
                                                             multiples ? uint32_t(n_points) : 0,
                                                             multiples ? uint32_t(base) : 0);
        CUDA_LAUNCH_OK("digits_kernel");
        // One sort per set of buckets: per window, or all the pairs at once with the multiples
        // (precompute_window_multiples keeps windows x points below 2^31, cub's item count).
        const size_t per_sort = multiples ? total : m;
        size_t temp_bytes = 0;
        CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.get(), keys_sorted.get(), vals.get(),
                                                vals_sorted.get(), int(per_sort), 0, int(c), stream));
        sort_temp.reserve(temp_bytes);
        for (unsigned w = 0; w < sum_windows; ++w) {
            size_t off = size_t(w) * m;
            CUDA_OK(cub::DeviceRadixSort::SortPairs(sort_temp.get(), temp_bytes, keys.get() + off,
                                                    keys_sorted.get() + off, vals.get() + off,
                                                    vals_sorted.get() + off, int(per_sort), 0, int(c), stream));
        }
        mark(3);
    }

    // Reads the sorted pairs of sort_pass and leaves them unchanged (the accumulation kernels and the split
    // bounds only read keys_sorted and vals_sorted), so the next point range reuses them.
    void accumulate_pass(const msm_options& opt, size_t m, unsigned c, unsigned group, bool multiples,
                         const point_t* pts, msm_report& rep, std::vector<bucket_t>& host_sums) {
        const unsigned sum_windows = multiples ? 1 : group;  // sets of buckets
        const uint32_t B = 1u << (c - 1);
        const size_t total = size_t(group) * m;
        // The sorted values index from the first multiple of the first resident point with the multiples.
        const point_t* acc_pts = multiples ? points.get() : pts;
        const size_t nbuckets = size_t(sum_windows) * B;
        buckets.reserve(nbuckets);
        CUDA_OK(cudaMemsetAsync(buckets.get(), 0, nbuckets * sizeof(bucket_t), stream));  // zz = 0: identity
        const unsigned variant = variant_of(opt, total, nbuckets);
        rep.accumulate_variant = variant;
        const unsigned chunk = opt.chunk      ? opt.chunk
                               : variant == 9 ? (is_g1 ? G1_AFFINE_CHUNK : G2_AFFINE_CHUNK)
                               : is_g1        ? G1_CHUNK
                                              : G2_CHUNK;
        const size_t chunks = (total + chunk - 1) / chunk;
        head.reserve(chunks);
        tail.reserve(chunks);
        head_state.reserve(chunks);
        tail_bucket.reserve(chunks);
        launch_accumulate(variant, opt, chunks, acc_pts, total, chunk, c,
                          fixed_scratch(run_n, m) + ones_held + size_t(group) * window_scratch(m, c));
        CUDA_LAUNCH_OK("accumulate_kernel");
        finish_split_buckets(total, chunk, chunks);
        mark(4);
        // Segment length L: the largest power of two <= windows B / REDUCE_THREADS, in [1, 64]. Each
        // thread does 2L additions then a multiplication by q L (log2(B) doublings), so short segments
        // cost more work in all but give the parallelism a latency-bound chain of additions needs.
        uint32_t L = 1;
        while (L < MAX_SEGMENT && L < B && size_t(sum_windows) * B / (2 * L) >= REDUCE_THREADS) L *= 2;
        const size_t segs = B / L;
        partial.reserve(sum_windows * segs);
        partial2.reserve(std::max<size_t>(sum_windows * ((segs + GROUP_SUM - 1) / GROUP_SUM), 1));
        reduce_segments_kernel<DF><<<grid_for(sum_windows * segs, 128), 128, 0, stream>>>(
            buckets.get(), sum_windows, B, L, partial.get());
        CUDA_LAUNCH_OK("reduce_segments_kernel");
        bucket_t* sums = group_sums(sum_windows, segs);
        mark(5);
        const size_t at = host_sums.size();  // window sums in window order, pass after pass
        host_sums.resize(at + sum_windows);
        CUDA_OK(cudaMemcpyAsync(host_sums.data() + at, sums, sum_windows * sizeof(bucket_t),
                                cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
    }

    ec::jacobian_t<F> run(size_t n, msm_report* report, const msm_options& opt) {
        CUDA_OK(cudaSetDevice(device));
        if (base > n_points || n > n_points - base) {
            throw std::invalid_argument("GPU MSM: " + std::to_string(n) + " scalars from point " +
                                        std::to_string(base) + " but only " + std::to_string(n_points) +
                                        " resident points");
        }
        if (n > n_scalars) throw std::invalid_argument("GPU MSM: fewer scalars uploaded than requested");
        if (host_points) return run_streamed(n, report, opt);
        return run_at(points.get() + base, run_scalars(), n, report, opt);
    }

    // Points in host memory (use_host_points): the run's range in segments through the two device buffers,
    // segment k + 1 copied on |copy_stream| while segment k's kernels run. Buffer (k + 1) % 2 is free by then:
    // run_at returns only once its kernels are done. The segments' sums add up on the host.
    ec::jacobian_t<F> run_streamed(size_t n, msm_report* report, const msm_options& opt) {
        if (!copy_stream) {
            CUDA_OK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
            for (auto& e : copied) CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        }
        const size_t segs = (n + segment - 1) / segment;
        auto upload = [&](size_t k) {
            const size_t lo = k * segment, cnt = std::min(segment, n - lo);
            CUDA_OK(cudaMemcpyAsync(points.get() + (k % 2) * segment, host_points + base + lo, cnt * sizeof(point_t),
                                    cudaMemcpyHostToDevice, copy_stream));
            CUDA_OK(cudaEventRecord(copied[k % 2], copy_stream));
        };
        ec::jacobian_t<F> acc;
        msm_report all;
        if (segs > 0) upload(0);
        for (size_t k = 0; k < segs; ++k) {
            if (k + 1 < segs) upload(k + 1);
            CUDA_OK(cudaStreamWaitEvent(stream, copied[k % 2], 0));
            const size_t lo = k * segment, cnt = std::min(segment, n - lo);
            msm_report r;
            acc = detail::add_sums<F>(acc, run_at(points.get() + (k % 2) * segment, run_scalars() + lo, cnt, &r, opt));
            accumulate_report(all, r);
        }
        all.segments = unsigned(segs);
        if (report) *report = all;
        return acc;
    }

    // The MSM of |n| scalars at |sc| against the points at |pts| (device memory).
    ec::jacobian_t<F> run_at(const point_t* pts, const dev_fr* sc, size_t n, msm_report* report,
                             const msm_options& opt) {
        const point_t* one[1] = {pts};
        return run_ranges(one, sc, n, report, opt).front();
    }

    // The MSMs of the same |n| scalars at |sc| against each of the point ranges |ranges| (device memory): the
    // classification, the Pippenger plan, the digits and their sorts are made once; each range then has its
    // ones summed, its buckets accumulated from the shared sorted pairs and reduced (run_uploaded_ranges).
    // With the multiples (whose digits index one range's multiples) |ranges| must be one range.
    std::vector<ec::jacobian_t<F>> run_ranges(std::span<const point_t* const> ranges, const dev_fr* sc, size_t n,
                                              msm_report* report, const msm_options& opt) {
        run_n = n;
        msm_report rep;
        std::vector<ec::jacobian_t<F>> results(ranges.size());
        if (n == 0 || ranges.empty()) {
            if (report) *report = rep;
            return results;
        }
        timing = opt.timing;
        if (timing && !events[0]) {
            for (auto& e : events) CUDA_OK(cudaEventCreate(&e));
        }
        mark(0);
        counters.reserve(2);
        one_idx.reserve(n);
        other_idx.reserve(n);
        CUDA_OK(cudaMemsetAsync(counters.get(), 0, 2 * sizeof(uint32_t), stream));
        classify_kernel<<<grid_for(n, CLASSIFY_THREADS * CLASSIFY_ITEMS), CLASSIFY_THREADS, 0, stream>>>(
            sc, n, counters.get(), one_idx.get(), other_idx.get());
        CUDA_LAUNCH_OK("classify_kernel");
        mark(1);
        uint32_t cnt[2];
        CUDA_OK(cudaMemcpyAsync(cnt, counters.get(), sizeof cnt, cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        rep.ones = cnt[0];
        rep.others = cnt[1];
        rep.zeros = n - cnt[0] - cnt[1];

        // Per range: its ones sum first (if any), then one sum per window.
        std::vector<std::vector<bucket_t>> host_sums(ranges.size());
        const size_t ones = cnt[0], m = cnt[1];
        const size_t ones_affine_min = opt.ones_affine_min ? opt.ones_affine_min
                                       : is_g1             ? G1_ONES_AFFINE_MIN
                                                           : G2_ONES_AFFINE_MIN;
        const bool ones_affine = ones >= ones_affine_min;
        ones_held = ones_affine ? ones_scratch(ones) : 0;
        // The Pippenger plan first: the ones' batch-affine sets are sized by what its first pass holds.
        unsigned c = 0, windows = 0, per_pass = 0;
        bool multiples = false;
        window_split split;
        if (m > 0) {
            // The precomputed multiples, where there are some, the caller allows them, the cost model prefers
            // them to the best width without (or the caller asks for their width), and all their pairs fit in
            // one pass under the memory limit.
            const unsigned pc = multiples_c;
            multiples = pc != 0 && opt.use_multiples &&
                        (opt.window_bits == pc ||
                         (opt.window_bits == 0 &&
                          multiples_cost(is_g1, m, pc) < plain_cost(is_g1, m, choose_window(is_g1, m)))) &&
                        windows_per_pass(m, pc, windows_for(pc)) == windows_for(pc);
            if (multiples && ranges.size() > 1)
                throw std::logic_error("GPU MSM: the window multiples serve one point range per run");
            c = multiples ? pc : opt.window_bits ? opt.window_bits : choose_window(is_g1, m);
            if (c < 2 || c > 24) throw std::invalid_argument("GPU MSM: window bits must be in 2..24");
            // ceil(256 / c) windows, from c = 21 on as narrow as that many allow (msm_digits.cuh, window_split);
            // the multiples are made for windows of c bits each.
            split = window_split::for_run(c, multiples || opt.uniform_windows);
            windows = split.windows;  // covering 256 bits: the top digit stays <= 2^(c-1)
            // Windows in passes of at most |per_pass| (all at once unless the memory limit says otherwise; the
            // narrower windows need less than the estimate at c), each pass of one width: each pass sorts,
            // accumulates and reduces its windows with scratch for them alone. With the multiples, one pass
            // and one set of buckets for every window.
            per_pass = multiples ? windows : windows_per_pass(m, c, windows);
        }
        // The ones' sums before any sort: the batch-affine sum uses the sorted pairs' buffers.
        if (ones > 0) {
            const size_t pass_bytes =
                fixed_scratch(run_n, m) + ones_held + (m > 0 ? size_t(per_pass) * window_scratch(m, c) : 0);
            for (size_t k = 0; k < ranges.size(); ++k) {
                bucket_t* s = sum_ones(opt, ranges[k], ones, ones_affine, pass_bytes);
                host_sums[k].resize(1);
                CUDA_OK(cudaMemcpyAsync(host_sums[k].data(), s, sizeof(bucket_t), cudaMemcpyDeviceToHost, stream));
                CUDA_OK(cudaStreamSynchronize(stream));
            }
        }

        mark(2);
        if (m > 0) {
            rep.multiples = multiples;
            for (unsigned w0 = 0, group = 0; w0 < windows; w0 += group) {
                group = std::min(per_pass, windows - w0);
                if (w0 < split.wide) group = std::min(group, split.wide - w0);  // one width per pass
                ++rep.passes;
                if (w0 > 0) mark(2);
                sort_pass(sc, m, split, w0, group, multiples);
                for (size_t k = 0; k < ranges.size(); ++k) {
                    if (k > 0) mark(3);  // this range's accumulation starts here
                    accumulate_pass(opt, m, split.width(w0), group, multiples, ranges[k], rep, host_sums[k]);
                    if (!timing) continue;
                    CUDA_OK(cudaEventSynchronize(events[5]));
                    // Events 2 and 3 are recorded again later: the one-scalar phase and the sort are read now.
                    if (w0 == 0 && k == 0) CUDA_OK(cudaEventElapsedTime(&rep.ms_ones, events[1], events[2]));
                    float ms[3];
                    for (int i = k == 0 ? 0 : 1; i < 3; ++i)
                        CUDA_OK(cudaEventElapsedTime(&ms[i], events[2 + i], events[3 + i]));
                    if (k == 0) rep.ms_sort += ms[0];
                    rep.ms_accumulate += ms[1];
                    rep.ms_reduce += ms[2];
                    collect_affine_times(rep);
                }
            }
        }
        // Each window sum's width (the gap to the next one's bit); with the multiples the one window sum is the
        // whole Pippenger part.
        std::vector<unsigned> widths;
        for (unsigned w = 0; w < (multiples ? 1 : windows); ++w) widths.push_back(split.width(w));
        for (size_t k = 0; k < ranges.size(); ++k) {
            // Same bytes as the host XYZZ type (static_asserts above).
            std::vector<ec::xyzz_t<F>> sums(host_sums[k].size());
            std::memcpy(static_cast<void*>(sums.data()), host_sums[k].data(), host_sums[k].size() * sizeof(bucket_t));
            const ec::xyzz_t<F>* ones_sum = ones > 0 ? sums.data() : nullptr;
            results[k] = detail::combine_window_sums<F>(ones_sum, sums.data() + (ones > 0 ? 1 : 0),
                                                        sums.size() - (ones > 0 ? 1 : 0), widths.data());
        }
        rep.window_bits = m > 0 ? split.c : 0;
        rep.wide_windows = m > 0 ? split.wide : 0;
        rep.windows = windows;
        if (timing) {
            mark(6);
            CUDA_OK(cudaEventSynchronize(events[6]));
            CUDA_OK(cudaEventElapsedTime(&rep.ms_classify, events[0], events[1]));
            if (m == 0) CUDA_OK(cudaEventElapsedTime(&rep.ms_ones, events[1], events[2]));
            // Without Pippenger, events 2 and 6 close the run; with it, the last pass's 5 (the passes' own
            // phases are summed above).
            CUDA_OK(cudaEventElapsedTime(&rep.ms_finish, events[m == 0 ? 2 : 5], events[6]));
        }
        if (report) *report = rep;
        return results;
    }

    // run_uploaded_ranges: the ranges at |firsts|, |n| uploaded scalars each.
    std::vector<ec::jacobian_t<F>> run_many(std::span<const size_t> firsts, size_t n, msm_report* report,
                                            const msm_options& opt) {
        CUDA_OK(cudaSetDevice(device));
        for (const size_t first : firsts) {
            if (first > n_points || n > n_points - first) {
                throw std::invalid_argument("GPU MSM: " + std::to_string(n) + " scalars from point " +
                                            std::to_string(first) + " but only " + std::to_string(n_points) +
                                            " resident points");
            }
        }
        if (n > n_scalars) throw std::invalid_argument("GPU MSM: fewer scalars uploaded than requested");
        struct reset {
            size_t& b;
            ~reset() { b = 0; }
        } r{base};
        // Streamed points are copied per range, and the multiples' digits name one range's multiples: those
        // runs go one range at a time (same results, nothing shared).
        if (host_points || multiples_c != 0) {
            std::vector<ec::jacobian_t<F>> out;
            msm_report all;
            for (const size_t first : firsts) {
                base = first;
                msm_report one;
                out.push_back(run(n, &one, opt));
                accumulate_report(all, one);
            }
            if (report) *report = all;
            return out;
        }
        std::vector<const point_t*> ranges;
        for (const size_t first : firsts) ranges.push_back(points.get() + first);
        return run_ranges(ranges, run_scalars(), n, report, opt);
    }

    // |all| += |r|: counts and times added, widths and variants the largest.
    static void accumulate_report(msm_report& all, const msm_report& r) {
        all.zeros += r.zeros, all.ones += r.ones, all.others += r.others;
        all.window_bits = std::max(all.window_bits, r.window_bits);
        all.windows = std::max(all.windows, r.windows);
        all.wide_windows = std::max(all.wide_windows, r.wide_windows);
        all.multiples = all.multiples || r.multiples;
        all.accumulate_variant = std::max(all.accumulate_variant, r.accumulate_variant);
        all.passes += r.passes;
        all.segments += r.segments;
        all.ms_classify += r.ms_classify, all.ms_ones += r.ms_ones, all.ms_sort += r.ms_sort;
        all.ms_accumulate += r.ms_accumulate, all.ms_reduce += r.ms_reduce, all.ms_finish += r.ms_finish;
        for (int k = 0; k < msm_report::AFFINE_KINDS; ++k) all.ms_affine[k] += r.ms_affine[k];
    }
};

template <class F>
msm_context<F>::msm_context(int device) : impl_(std::make_unique<impl>(device)) {}
template <class F>
msm_context<F>::~msm_context() = default;

template <class F>
size_t msm_context<F>::size() const {
    return impl_->n_points;
}

template <class F>
void msm_context<F>::upload_points(std::span<const ec::affine_t<F>> pts) {
    impl_->multiples_c = impl_->multiples_windows = 0;
    impl_->host_points = nullptr;
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->points.reserve(std::max<size_t>(pts.size(), 1));
    impl_->n_points = 0;
    upload_points_at(0, pts);
    impl_->n_points = pts.size();
}

template <class F>
void msm_context<F>::reserve_points(size_t n) {
    impl_->multiples_c = impl_->multiples_windows = 0;
    impl_->host_points = nullptr;
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->points.reserve(std::max<size_t>(n, 1));
    impl_->n_points = n;
}

template <class F>
void msm_context<F>::upload_points_at(size_t first, std::span<const ec::affine_t<F>> pts) {
    using point_t = typename impl::point_t;
    static_assert(sizeof(point_t) == 2 * sizeof(F));
    if (impl_->host_points)
        throw std::invalid_argument("GPU MSM: the points are in host memory (use_host_points); reserve_points or "
                                    "upload_points first to have them on the device");
    if (first > impl_->points.capacity() || pts.size() > impl_->points.capacity() - first)
        throw std::invalid_argument("GPU MSM: points [" + std::to_string(first) + ", " +
                                    std::to_string(first + pts.size()) + ") beyond the " +
                                    std::to_string(impl_->points.capacity()) + " reserved");
    impl_->multiples_c = impl_->multiples_windows = 0;  // they were made from the points being replaced
    CUDA_OK(cudaSetDevice(impl_->device));
    // Packed x, y per point; the identity becomes x = y = 0. Staged in pieces of 2^16 points.
    const size_t piece = size_t(1) << 16;
    std::vector<point_t> stage(std::min(pts.size(), piece));
    for (size_t lo = 0; lo < pts.size(); lo += piece) {
        size_t cnt = std::min(piece, pts.size() - lo);
        for (size_t i = 0; i < cnt; ++i) {
            const auto& p = pts[lo + i];
            if (p.infinity) {
                std::memset(static_cast<void*>(&stage[i]), 0, sizeof(point_t));
            } else {
                std::memcpy(static_cast<void*>(&stage[i].x), &p.x, sizeof(F));
                std::memcpy(static_cast<void*>(&stage[i].y), &p.y, sizeof(F));
            }
        }
        // On the context's stream, waited for: a plain cudaMemcpy from pageable memory may return before
        // its DMA lands, and kernels on a non-blocking stream do not wait for it (nor may |stage| be reused).
        CUDA_OK(cudaMemcpyAsync(impl_->points.get() + first + lo, stage.data(), cnt * sizeof(point_t),
                                cudaMemcpyHostToDevice, impl_->stream));
        CUDA_OK(cudaStreamSynchronize(impl_->stream));
    }
}

template <class F>
void msm_context<F>::generate_points(size_t n, std::span<const ec::affine_t<F>> seeds) {
    using DF = typename impl::DF;
    using point_t = typename impl::point_t;
    const size_t level = size_t(1) << 20;
    const size_t need = 2048 + (n + level - 1) / level;
    if (seeds.size() < need) {
        throw std::invalid_argument("generate_points: " + std::to_string(n) + " points need " + std::to_string(need) +
                                    " seed points, got " + std::to_string(seeds.size()));
    }
    impl_->multiples_c = impl_->multiples_windows = 0;
    impl_->host_points = nullptr;
    msm_context<F> seed_ctx(impl_->device);  // reuses the packing of upload_points
    seed_ctx.upload_points(seeds);
    const point_t* sd = seed_ctx.impl_->points.get();
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->points.reserve(std::max<size_t>(n, 1));
    const size_t n1 = std::min(n, level);
    if (n <= level) {
        pair_sum_kernel<DF><<<grid_for(n1, 128), 128, 0, impl_->stream>>>(sd, 1024, sd + 1024, 1024, n1,
                                                                          impl_->points.get());
        CUDA_LAUNCH_OK("pair_sum_kernel");
    } else {
        device_buffer<point_t> q;
        q.reserve(level);
        pair_sum_kernel<DF><<<grid_for(level, 128), 128, 0, impl_->stream>>>(sd, 1024, sd + 1024, 1024, level, q.get());
        CUDA_LAUNCH_OK("pair_sum_kernel");
        pair_sum_kernel<DF><<<grid_for(n, 128), 128, 0, impl_->stream>>>(q.get(), level, sd + 2048, need - 2048, n,
                                                                         impl_->points.get());
        CUDA_LAUNCH_OK("pair_sum_kernel");
        CUDA_OK(cudaStreamSynchronize(impl_->stream));
    }
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
    impl_->n_points = n;
}

template <class F>
unsigned msm_context<F>::precompute_window_multiples(unsigned c, size_t max_bytes) {
    using DF = typename impl::DF;
    using point_t = typename impl::point_t;
    impl& m = *impl_;
    const size_t n = m.n_points;
    if (m.host_points)
        throw std::invalid_argument("GPU MSM: window multiples need the points on the device, not in host memory");
    if (c == 0) c = choose_multiples_window(n);
    if (c < 2 || c > MAX_MULTIPLES_WINDOW)
        throw std::invalid_argument("GPU MSM: multiples need a window of 2.." + std::to_string(MAX_MULTIPLES_WINDOW) +
                                    " bits, not " + std::to_string(c));
    const unsigned windows = windows_for(c);
    // The sorted values hold a multiple's index in 31 bits (NEG_FLAG is the 32nd), and cub sorts at most
    // 2^31 - 1 items: both bound windows x points.
    if (n == 0 || size_t(windows) * n >= (size_t(1) << 31))
        throw std::invalid_argument("GPU MSM: " + std::to_string(windows) + " window multiples of " +
                                    std::to_string(n) + " points do not fit in 31-bit indices");
    const size_t bytes = size_t(windows) * n * sizeof(point_t);
    if (bytes > max_bytes) return 0;
    CUDA_OK(cudaSetDevice(m.device));
    m.multiples_c = m.multiples_windows = 0;
    CUDA_OK(cudaStreamSynchronize(m.stream));  // no kernel of an earlier run still reads the scratch
    m.release_scratch();
    if (m.points.capacity() > n) {
        // Earlier multiples (or room reserved beyond the points): down to the points alone first, so the peak
        // below is W + 1 copies of them, not that plus the old table.
        device_buffer<point_t> only;
        only.reserve(n);
        CUDA_OK(cudaMemcpyAsync(only.get(), m.points.get(), n * sizeof(point_t), cudaMemcpyDeviceToDevice, m.stream));
        CUDA_OK(cudaStreamSynchronize(m.stream));
        m.points.swap(only);
    }
    // A new buffer for all the windows, the points copied in as window 0, then each window from the one
    // before. The old buffer goes only once the new one is complete: a failure leaves the points as they were.
    device_buffer<point_t> table;
    table.reserve(size_t(windows) * n);
    CUDA_OK(cudaMemcpyAsync(table.get(), m.points.get(), n * sizeof(point_t), cudaMemcpyDeviceToDevice, m.stream));
    for (unsigned w = 1; w < windows; ++w) {
        window_multiples_kernel<DF><<<grid_for((n + MULTIPLES_GROUP - 1) / MULTIPLES_GROUP, 64), 64, 0, m.stream>>>(
            table.get() + size_t(w - 1) * n, table.get() + size_t(w) * n, n, c);
        CUDA_LAUNCH_OK("window_multiples_kernel");
    }
    CUDA_OK(cudaStreamSynchronize(m.stream));
    m.points.swap(table);
    m.multiples_c = c;
    m.multiples_windows = windows;
    return c;
}

template <class F>
unsigned msm_context<F>::multiples_window() const {
    return impl_->multiples_c;
}

template <class F>
void msm_context<F>::pack_points(std::span<const ec::affine_t<F>> pts, void* out) {
    using point_t = typename impl::point_t;
    auto* dst = static_cast<std::byte*>(out);
    for (size_t i = 0; i < pts.size(); ++i, dst += sizeof(point_t)) {
        if (pts[i].infinity) {
            std::memset(dst, 0, sizeof(point_t));
        } else {
            std::memcpy(dst, &pts[i].x, sizeof(F));
            std::memcpy(dst + sizeof(F), &pts[i].y, sizeof(F));
        }
    }
}

template <class F>
void msm_context<F>::download_points_packed(void* out) const {
    using point_t = typename impl::point_t;
    if (impl_->host_points) throw std::invalid_argument("GPU MSM: the points are in host memory already");
    CUDA_OK(cudaSetDevice(impl_->device));
    CUDA_OK(cudaMemcpy(out, impl_->points.get(), impl_->n_points * sizeof(point_t), cudaMemcpyDeviceToHost));
}

template <class F>
void msm_context<F>::use_host_points(const void* packed, size_t n, size_t segment) {
    using point_t = typename impl::point_t;
    if (segment == 0) throw std::invalid_argument("GPU MSM: host points need a segment of at least one point");
    impl& m = *impl_;
    CUDA_OK(cudaSetDevice(m.device));
    CUDA_OK(cudaStreamSynchronize(m.stream));
    m.multiples_c = m.multiples_windows = 0;
    // The device copy goes: the two segment buffers take its place.
    m.points.release();
    m.points.reserve(2 * segment);
    m.host_points = static_cast<const point_t*>(packed);
    m.segment = segment;
    m.n_points = n;
}

template <class F>
bool msm_context<F>::host_points() const {
    return impl_->host_points != nullptr;
}

template <class F>
void msm_context<F>::set_scratch_limit(size_t bytes) {
    impl_->scratch_limit = bytes;
}

template <class F>
size_t msm_context<F>::scratch_estimate(size_t n, size_t m, unsigned windows_per_pass) {
    if (m == 0) return impl::fixed_scratch(n, 0);
    const unsigned c = choose_window(impl::is_g1, m), windows = windows_for(c);
    // The windows of one width go through a pass together: without a limit, a pass holds the larger group.
    const window_split split = window_split::for_run(c, false);
    const unsigned widest_pass = split.wide == windows ? windows : std::max(split.wide, windows - split.wide);
    const unsigned per_pass = windows_per_pass == 0 ? widest_pass : std::min(windows_per_pass, widest_pass);
    const size_t rest = impl::fixed_scratch(n, m) + per_pass * impl::window_scratch(m, c);
    // The batch-affine rounds' two scratch sets, where the run takes them by default (G2; G1 with long runs
    // per bucket, as the H query's random scalars): at their default size without a limit; under one they
    // take what the pass leaves of it, at least an eighth (launch_accumulate), so a limit x covers rest + x / 8
    // from x = 8 rest / 7. The widest pass counts as no limit (the most the sets take).
    if (!impl::affine_by_default(size_t(per_pass) * m, size_t(per_pass) << (c - 1))) return rest;
    return per_pass == widest_pass ? rest + 2 * BATCH_AFFINE_BYTES : rest + rest / 7;
}

template <class F>
size_t msm_context<F>::scratch_bytes() const {
    size_t b = impl_->scalars.capacity() * sizeof(dev_fr);
    impl_->for_each_scratch([&b](const auto& buf) { b += buf.bytes(); });
    return b;
}

template <class F>
std::vector<ec::affine_t<F>> msm_context<F>::download_points() const {
    using point_t = typename impl::point_t;
    CUDA_OK(cudaSetDevice(impl_->device));
    std::vector<point_t> raw(impl_->n_points);
    if (impl_->host_points)
        std::memcpy(static_cast<void*>(raw.data()), impl_->host_points, raw.size() * sizeof(point_t));
    else
        CUDA_OK(cudaMemcpy(raw.data(), impl_->points.get(), raw.size() * sizeof(point_t), cudaMemcpyDeviceToHost));
    std::vector<ec::affine_t<F>> out(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        // The device identity is x = y = 0 (curve.cuh); compared by bytes so no field code runs here.
        static const point_t zero{};
        if (std::memcmp(&raw[i], &zero, sizeof(point_t)) == 0) continue;
        std::memcpy(static_cast<void*>(&out[i].x), &raw[i].x, sizeof(F));
        std::memcpy(static_cast<void*>(&out[i].y), &raw[i].y, sizeof(F));
        out[i].infinity = false;
    }
    return out;
}

template <class F>
void msm_context<F>::upload_scalars(std::span<const ff::fr_t> sc) {
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->scalars.reserve(std::max<size_t>(sc.size(), 1));
    // Ordered with the MSM kernels on the context's stream and complete on return (see upload_points_at).
    CUDA_OK(cudaMemcpyAsync(impl_->scalars.get(), sc.data(), sc.size() * sizeof(ff::fr_t), cudaMemcpyHostToDevice,
                            impl_->stream));
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
    impl_->n_scalars = sc.size();
    impl_->external_scalars = nullptr;
}

template <class F>
void msm_context<F>::upload_scalars_device(const ff::fr_t* dev, size_t n) {
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->scalars.reserve(std::max<size_t>(n, 1));
    CUDA_OK(cudaMemcpyAsync(impl_->scalars.get(), dev, n * sizeof(ff::fr_t), cudaMemcpyDeviceToDevice, impl_->stream));
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
    impl_->n_scalars = n;
    impl_->external_scalars = nullptr;
}

template <class F>
void msm_context<F>::use_scalars_device(const ff::fr_t* dev, size_t n) {
    if (n > 0 && dev == nullptr) throw std::invalid_argument("GPU MSM: no device scalars to use");
    impl_->external_scalars = reinterpret_cast<const dev_fr*>(dev);
    impl_->n_scalars = n;
}

template <class F>
const ff::fr_t* msm_context<F>::scalars_device() const {
    return reinterpret_cast<const ff::fr_t*>(impl_->run_scalars());
}

template <class F>
ec::jacobian_t<F> msm_context<F>::run_uploaded(size_t n, msm_report* report, const msm_options& opt) {
    return impl_->run(n, report, opt);
}

template <class F>
ec::jacobian_t<F> msm_context<F>::run_uploaded_range(size_t first_point, size_t n, msm_report* report,
                                                     const msm_options& opt) {
    struct reset {
        size_t& b;
        ~reset() { b = 0; }
    } r{impl_->base};
    impl_->base = first_point;
    return impl_->run(n, report, opt);
}

template <class F>
std::vector<ec::jacobian_t<F>> msm_context<F>::run_uploaded_ranges(std::span<const size_t> first_points, size_t n,
                                                                   msm_report* report, const msm_options& opt) {
    return impl_->run_many(first_points, n, report, opt);
}

template <class F>
ec::jacobian_t<F> msm_context<F>::run(std::span<const ff::fr_t> sc, msm_report* report, const msm_options& opt) {
    if (sc.size() > impl_->n_points) {
        throw std::invalid_argument("GPU MSM: " + std::to_string(sc.size()) + " scalars but only " +
                                    std::to_string(impl_->n_points) + " resident points");
    }
    upload_scalars(sc);
    return impl_->run(sc.size(), report, opt);
}

template class msm_context<ff::fp_t>;
template class msm_context<ff::fp2_t>;

}  // namespace cuzk::cuda
