// Batch-affine rounds of the GPU MSM's bucket accumulation (msm.cu, accumulation variant 9).
//
// Why: a mixed XYZZ addition costs 10 field multiplications; an affine addition
//   lambda = (y_Q - y_P) / (x_Q - x_P), x = lambda^2 - x_P - x_Q, y = lambda (x_P - x) - y_P
// costs 3 plus a division, and a round of many independent divisions shares one inversion (Montgomery's
// trick: 3 multiplications per division), so ~6 per addition. The accumulation is bound by its
// multiplications (BENCHMARKS.md), so fewer of them is the lever.
//
// How: the sorted (key, point) pairs are cut into the same chunks as accumulate_kernel's. Each round adds
// adjacent points of one bucket inside a chunk, pairwise, so a round halves the chunk's long runs; after the
// rounds, the points left in each chunk (a few per bucket) go through mixed XYZZ additions into the same
// results accumulate_kernel leaves (chunk_results), and the split-bucket passes after it are unchanged.
// Per round, three kernels over a batch of chunks (bounded scratch, so any MSM size fits):
//   pair_products_kernel: walks its chunk from the back and pairs adjacent points of one bucket (an odd
//     run leaves its first point alone); stores, per pair, the product of the x differences of the pairs
//     behind it, and the chunk's total product;
//   invert_totals_kernel: inverts the chunk totals, one field inversion per group of chunks;
//   pair_sums_kernel: walks forward, recovers each pair's 1 / (x_Q - x_P) from its stored product and the
//     running inverse, and writes the sums and the unpaired points compacted to the front of the chunk's
//     slots (in place: the write position never passes the read position).
// Round 0 reads the sorted pairs and gathers the points (y negated for negative digits, zero digits
// dropped); later rounds read the batch's slots. Points with equal x (P = +-Q) or a zero x (the identity
// is stored as x = y = 0) are never paired: they go on to the XYZZ step, which handles doubling and the
// identity exactly.
//
// Layout: slots are planes of 16-byte words: word w of the point in slot j of the batch's chunk k is at
// planes[w * slots + j * segs + k], so 32 threads walking 32 chunks in step read 512 contiguous bytes per word.
#pragma once

#include <cstdint>

#include "gpud/cuda/msm_pairs.cuh"

namespace cuzk::cuda::batch_affine {

constexpr unsigned MAX_CHUNK = 64;      // pairing marks are one 64-bit word per chunk
// Chunk totals per field inversion: the kernel's latency is ~3 INVERT_GROUP dependent multiplications
// plus one binary-GCD inversion (field.cuh, inverse_binary), with too few threads to hide either.
constexpr unsigned INVERT_GROUP = 16;

template <class F>
constexpr int words_of = int(sizeof(F) / 16);

// One batch's scratch (device pointers) and its shape: |segs| chunks of |chunk| slots.
struct scratch {
    uint4* points;     // 2 words_of<F> planes of |slots| (x then y)
    uint32_t* keys;    // |slots|
    uint4* products;   // words_of<F> planes of |pair_slots|
    uint32_t* count;   // points per chunk after the last round
    uint64_t* paired;  // bit j: slots j and j + 1 are added this round
    size_t segs, slots, pair_slots;
    unsigned chunk;
};

template <class F>
__device__ __forceinline__ F load_words(const uint4* planes, size_t stride, size_t i) {
    F r;
    uint4* d = reinterpret_cast<uint4*>(&r);
#pragma unroll
    for (int w = 0; w < words_of<F>; ++w) d[w] = planes[w * stride + i];
    return r;
}
template <class F>
__device__ __forceinline__ void store_words(uint4* planes, size_t stride, size_t i, const F& v) {
    const uint4* s = reinterpret_cast<const uint4*>(&v);
#pragma unroll
    for (int w = 0; w < words_of<F>; ++w) planes[w * stride + i] = s[w];
}

// Where a chunk's points come from: the sorted pairs and resident points (round 0) or the batch's slots.
template <class F, bool FIRST>
struct chunk_source {
    const scratch& sc;
    const dev_affine<F>* points;
    const uint32_t* keys_sorted;
    const uint32_t* vals_sorted;
    size_t first;  // round 0: index of the chunk's first sorted pair
    size_t k;      // the chunk within the batch

    __device__ __forceinline__ size_t slot(unsigned j) const { return size_t(j) * sc.segs + k; }
    __device__ __forceinline__ uint32_t key(unsigned j) const {
        if constexpr (FIRST) return keys_sorted[first + j];
        else return sc.keys[slot(j)];
    }
    __device__ __forceinline__ F x(unsigned j) const {
        if constexpr (FIRST) {
            const F* p = &points[vals_sorted[first + j] & ~NEG_FLAG].x;
            F r;
            const uint4* src = reinterpret_cast<const uint4*>(p);
            uint4* dst = reinterpret_cast<uint4*>(&r);
#pragma unroll
            for (int w = 0; w < words_of<F>; ++w) dst[w] = __ldg(src + w);
            return r;
        } else {
            return load_words<F>(sc.points, sc.slots, slot(j));
        }
    }
    __device__ __forceinline__ dev_affine<F> point(unsigned j) const {
        if constexpr (FIRST) {
            uint32_t v = vals_sorted[first + j];
            dev_affine<F> p = load_affine(points + (v & ~NEG_FLAG));
            if (v & NEG_FLAG) p.y = -p.y;
            return p;
        } else {
            return {load_words<F>(sc.points, sc.slots, slot(j)),
                    load_words<F>(sc.points + words_of<F> * sc.slots, sc.slots, slot(j))};
        }
    }
    __device__ __forceinline__ void store(unsigned j, uint32_t key, const dev_affine<F>& p) const {
        sc.keys[slot(j)] = key;
        store_words(sc.points, sc.slots, slot(j), p.x);
        store_words(sc.points + words_of<F> * sc.slots, sc.slots, slot(j), p.y);
    }
};

// Points in chunk k (of the batch starting at chunk k0) before this round.
template <bool FIRST>
__device__ __forceinline__ unsigned chunk_points(const scratch& sc, size_t total, size_t k0, size_t k) {
    if constexpr (FIRST) return unsigned(min(total - (k0 + k) * sc.chunk, size_t(sc.chunk)));
    else return sc.count[k];
}

template <class F, bool FIRST>
__global__ void pair_products_kernel(scratch sc, const dev_affine<F>* __restrict__ points,
                                     const uint32_t* __restrict__ keys_sorted, const uint32_t* __restrict__ vals_sorted,
                                     size_t total, size_t k0, size_t nseg, unsigned c, F* totals) {
    size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= nseg) return;
    const pair_keys pk(c);
    const chunk_source<F, FIRST> src{sc, points, keys_sorted, vals_sorted, (k0 + k) * sc.chunk, k};
    const unsigned n = chunk_points<FIRST>(sc, total, k0, k);
    F run = F::one();
    uint64_t paired = 0;
    unsigned q = 0;  // pairs so far, counted from the back
    if (n >= 2) {
        unsigned j = n - 1;
        uint32_t kj = src.key(j);
        F xj = src.x(j);
        while (j >= 1) {
            uint32_t ki = src.key(j - 1);
            F xi = src.x(j - 1);
            if (ki == kj && !(FIRST && pk.zero_digit(kj)) && !xi.is_zero() && !xj.is_zero() && !(xi == xj)) {
                store_words(sc.products, sc.pair_slots, size_t(q) * sc.segs + k, run);
                run = run * (xj - xi);
                ++q;
                paired |= uint64_t(1) << (j - 1);
                if (j < 3) break;
                j -= 2;
                kj = src.key(j);
                xj = src.x(j);
            } else {
                --j;
                kj = ki;
                xj = xi;
            }
        }
    }
    sc.paired[k] = paired;
    totals[k] = run;
}

// totals[i] -> 1 / totals[i] for i < n, in groups of INVERT_GROUP: prefix products, one inversion, and
// back (3 multiplications per total). No total is zero: pairs have distinct x.
template <class F>
__global__ void invert_totals_kernel(const F* __restrict__ totals, F* inverses, size_t n) {
    size_t g = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    size_t lo = g * INVERT_GROUP;
    if (lo >= n) return;
    size_t hi = min(n, lo + INVERT_GROUP);
    F run = F::one();
    for (size_t i = lo; i < hi; ++i) {
        inverses[i] = run;
        run = run * totals[i];
    }
    F inv = run.inverse_binary();
    for (size_t i = hi; i-- > lo;) {
        F t = inv * inverses[i];
        inv = inv * totals[i];
        inverses[i] = t;
    }
}

template <class F, bool FIRST>
__global__ void pair_sums_kernel(scratch sc, const dev_affine<F>* __restrict__ points,
                                 const uint32_t* __restrict__ keys_sorted, const uint32_t* __restrict__ vals_sorted,
                                 size_t total, size_t k0, size_t nseg, unsigned c, const F* __restrict__ inverses) {
    size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= nseg) return;
    const pair_keys pk(c);
    const chunk_source<F, FIRST> src{sc, points, keys_sorted, vals_sorted, (k0 + k) * sc.chunk, k};
    const unsigned n = chunk_points<FIRST>(sc, total, k0, k);
    const uint64_t paired = sc.paired[k];
    unsigned q = unsigned(__popcll(paired));
    F inv = inverses[k];  // 1 / (product of all the chunk's differences)
    unsigned out = 0;
    for (unsigned j = 0; j < n;) {
        uint32_t key = src.key(j);
        if ((paired >> j) & 1) {
            dev_affine<F> a = src.point(j), b = src.point(j + 1);
            --q;
            F dx = b.x - a.x;
            F dx_inv = inv * load_words<F>(sc.products, sc.pair_slots, size_t(q) * sc.segs + k);
            inv = inv * dx;
            F l = (b.y - a.y) * dx_inv;
            dev_affine<F> r;
            r.x = l.sqr() - a.x - b.x;
            r.y = l * (a.x - r.x) - a.y;
            src.store(out, key, r);
            j += 2;
        } else {
            if (FIRST && pk.zero_digit(key)) {
                ++j;
                continue;
            }
            if (FIRST || out != j) src.store(out, key, src.point(j));
            ++j;
        }
        ++out;
    }
    sc.count[k] = out;
}

// The points left in each chunk, summed run by run with mixed XYZZ additions into chunk_results. Whether
// a run starts or ends in the chunk is read from the sorted keys around the chunk.
template <class F>
__global__ void accumulate_rest_kernel(scratch sc, const uint32_t* __restrict__ keys_sorted, size_t total, size_t k0,
                                       size_t nseg, unsigned c, chunk_results<dev_xyzz<F>> out) {
    size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= nseg) return;
    const size_t g = k0 + k, s = g * sc.chunk, e = min(total, s + sc.chunk);
    const pair_keys pk(c);
    const chunk_source<F, false> src{sc, nullptr, nullptr, nullptr, s, k};
    out.clear(g);
    const unsigned n = sc.count[k];
    if (n == 0) return;
    uint32_t cur = src.key(0);
    bool starts_here = s == 0 || keys_sorted[s - 1] != cur;
    dev_xyzz<F> acc = dev_xyzz<F>::identity();
    for (unsigned j = 0; j < n; ++j) {
        uint32_t key = src.key(j);
        if (key != cur) {
            out.write(g, pk, cur, starts_here, true, acc);
            acc = dev_xyzz<F>::identity();
            cur = key;
            starts_here = true;
        }
        dev_affine<F> p = src.point(j);
        if (!p.is_identity()) acc.accumulate(p);
    }
    out.write(g, pk, cur, starts_here, e == total || keys_sorted[e] != cur, acc);
}

}  // namespace cuzk::cuda::batch_affine
