// Batch-affine rounds of the GPU MSM's bucket accumulation (msm_accumulate.cuh; sequenced by msm_run.cuh,
// accumulate_batch_affine).
//
// Why: a mixed XYZZ addition costs 10 field multiplications; an affine addition
//   lambda = (y_Q - y_P) / (x_Q - x_P), x = lambda^2 - x_P - x_Q, y = lambda (x_P - x) - y_P
// costs 3 plus a division, and a round of many independent divisions shares one inversion (Montgomery's
// trick: 3 multiplications per division), so ~6 per addition. The accumulation is bound by its
// multiplications (docs/benchmarks-history.md), so fewer of them is the lever.
//
// How: the sorted (key, point) pairs are cut into chunks as for accumulate_xyzz_kernel. Each round adds
// adjacent points of one bucket inside a chunk, pairwise, so a round halves the chunk's long runs; after the
// rounds, the points left in each chunk (a few per bucket) go through mixed XYZZ additions into the same
// results accumulate_xyzz_kernel leaves (chunk_results), and the split-bucket passes after it are unchanged.
// A round's divisions need the products of the x differences before them (Montgomery's trick), so the
// pairs of a round are chosen, and their running product stored, one walk over the chunk before the walk
// that adds them, in the opposite direction:
//   round 0's pairs: pair_products_first walks the sorted pairs from the back (its own pass: it gathers
//     the x coordinates of the resident points);
//   invert_group: the chunks' totals are inverted, one field inversion per INVERT_GROUP chunks
//     (field.cuh, inverse_fast);
//   round r's sums: pair_sums walks forward for even r and backward for odd r, recovers each pair's
//     1 / (x_Q - x_P) from its stored product and the running inverse, and writes the sums and the unpaired
//     points compacted to the front (forward) or the back (backward) of the chunk's slots, in place: the
//     write position never passes the read position;
//   round r + 1's pairs: chosen greedily in the order round r wrote its outputs (next_round), so round
//     r + 1 walks the other way, by pair_products_slots, a pass of its own over the slots in that order
//     (making them in round r's walk instead, as each output is written, lost on an H200: msm_accumulate.cuh);
//   accumulate_rest: the points left after the last round, run by run into chunk_results.
// Per batch, one batch's rest runs beside the next batch's round-0 pairs (rest_and_pairs_kernel: G1) or
// after its own rounds, with the batches alternating between two streams (G2); msm_accumulate.cuh has the
// measurements.
// Round 0 reads the sorted pairs and gathers the points (y negated for negative digits, zero digits
// dropped); later rounds read the batch's slots. Points with equal x (P = +-Q) or a zero x (the identity
// is stored as x = y = 0; no point of the prime-order subgroups has x = 0) are never paired: they go on to
// the XYZZ step, which handles doubling and the identity exactly.
//
// Lockstep: one thread walks one chunk, and a warp's 32 threads issue together, so a multiplication under a
// branch costs the whole warp whenever any of its threads takes the branch. A walk that multiplies in some
// steps and not in others (an unpaired point, a point left pending) therefore costs a multiplication per
// step of the busiest thread, not per pair: the later rounds' pairs multiply in about every other step, at
// different steps in different chunks. So each walk finds its next pair in an inner loop that only loads,
// compares or copies, and multiplies once per outer iteration: a warp multiplies as often as its chunk
// with the most pairs has pairs (measured on an H200, docs/benchmarks-history.md). The sums' forward walks come in both
// forms (pair_sums' LOCKSTEP): there the step-by-step form can win, because a warp's divergent paths
// interleave, so one thread's gathers for an unpaired point overlap the others' additions, which the lockstep
// form's inner loop makes them wait for (G1's round 0 walks step by step; msm_accumulate.cuh).
// Layout: slots are planes of 16-byte words: word w of the point in slot j of the batch's chunk k is at
// planes[w * slots + j * segs + k], so 32 threads walking 32 chunks in step read 512 contiguous bytes per word.
// The chunk functions are host and device code (the kernels below call them per chunk), so every
// machine tests the rounds on the host (tests/test_device_batch_affine_on_host.cpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "gpud/cuda/msm_pairs.cuh"
#include "gpud/cuda/words.cuh"

namespace cuzk::cuda::batch_affine {

// Pairs per chunk at most: a chunk's pairing marks are MARK_WORDS 64-bit words.
constexpr unsigned MAX_CHUNK = 128;
constexpr unsigned MARK_WORDS = MAX_CHUNK / 64;
// Chunk totals per field inversion: the kernel's latency is ~3 INVERT_GROUP dependent multiplications
// plus one inversion (field.cuh, inverse_fast), with too few threads to hide either.
constexpr unsigned INVERT_GROUP = 16;

CUZK_HD_INLINE unsigned popc64(uint64_t v) {
#if defined(__CUDA_ARCH__)
    return unsigned(__popcll(v));
#else
    return unsigned(__builtin_popcountll(v));
#endif
}

// A chunk's pairing marks for one round: bit j set means slots j and j + 1 are added. Two named words, not
// an array: ptxas placed a two-word array in local memory (a 16-byte stack frame per thread) even indexed
// by constants only. Stored as MARK_WORDS planes of one word per chunk (word i of chunk k at
// paired[i * segs + k]), so a warp's loads coalesce.
struct pair_marks {
    static_assert(MARK_WORDS == 2, "pair_marks holds two 64-bit words");
    uint64_t lo = 0, hi = 0;  // slots 0-63, 64-127

    CUZK_HD_INLINE void set(unsigned j) {
        if (j < 64) lo |= uint64_t(1) << j;
        else hi |= uint64_t(1) << (j - 64);
    }
    CUZK_HD_INLINE bool test(unsigned j) const { return ((j < 64 ? lo >> j : hi >> (j - 64)) & 1) != 0; }
    CUZK_HD_INLINE unsigned count() const { return popc64(lo) + popc64(hi); }
};

// Round r's sums walk the chunk forward for even r (outputs gather at the front), backward for odd r
// (at the back); round 0 is forward, so round 0's products are made walking backward.
CUZK_HD_INLINE constexpr bool walks_forward(unsigned r) { return r % 2 == 0; }

// One batch's scratch (device pointers) and its shape: |segs| chunks of |chunk| slots.
struct scratch {
    word* points;       // 2 words_of<F> planes of |slots| (x then y)
    uint32_t* keys;     // |slots|
    word* products[2];  // words_of<F> planes of |pair_slots| each; round r's are products[r % 2]
    uint32_t* count;    // points per chunk after the last round
    uint64_t* paired;   // MARK_WORDS planes of |segs| words: the chunks' pair_marks for this round
    size_t segs, slots, pair_slots;
    unsigned chunk;

    CUZK_HD_INLINE pair_marks load_marks(size_t k) const {
        pair_marks m;
        m.lo = paired[k];
        m.hi = paired[segs + k];
        return m;
    }
    CUZK_HD_INLINE void store_marks(size_t k, const pair_marks& m) const {
        paired[k] = m.lo;
        paired[segs + k] = m.hi;
    }
};

// Plane layouts (see Layout above) through the word copies of words.cuh.
template <class F>
CUZK_HD_INLINE F load_words(const word* planes, size_t stride, size_t i) {
    word d[words_of<F>];
    CUZK_UNROLL
    for (int w = 0; w < words_of<F>; ++w) d[w] = planes[w * stride + i];
    return from_words<F>(d);
}
template <class F>
CUZK_HD_INLINE void store_words(word* planes, size_t stride, size_t i, const F& v) {
    word s[words_of<F>];
    memcpy(static_cast<void*>(s), &v, sizeof v);
    CUZK_UNROLL
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

    CUZK_HD_INLINE size_t slot(unsigned j) const { return size_t(j) * sc.segs + k; }
    CUZK_HD_INLINE uint32_t key(unsigned j) const {
        if constexpr (FIRST) return keys_sorted[first + j];
        else return sc.keys[slot(j)];
    }
    CUZK_HD_INLINE F x(unsigned j) const {
        if constexpr (FIRST) return load_resident(&points[vals_sorted[first + j] & ~NEG_FLAG].x);
        else return load_words<F>(sc.points, sc.slots, slot(j));
    }
    CUZK_HD_INLINE dev_affine<F> point(unsigned j) const {
        if constexpr (FIRST) {
            uint32_t v = vals_sorted[first + j];
            const dev_affine<F>* p = points + (v & ~NEG_FLAG);
            dev_affine<F> r{load_resident(&p->x), load_resident(&p->y)};
            if (v & NEG_FLAG) r.y = -r.y;
            return r;
        } else {
            return {load_words<F>(sc.points, sc.slots, slot(j)),
                    load_words<F>(sc.points + words_of<F> * sc.slots, sc.slots, slot(j))};
        }
    }
    CUZK_HD_INLINE void store(unsigned j, uint32_t key, const dev_affine<F>& p) const {
        sc.keys[slot(j)] = key;
        store_words(sc.points, sc.slots, slot(j), p.x);
        store_words(sc.points + words_of<F> * sc.slots, sc.slots, slot(j), p.y);
    }
};

// The slots [lo, lo + n) that hold chunk k's points before round r (round 0: the chunk's sorted pairs).
struct slot_range {
    unsigned lo, n;
};
template <bool FIRST>
CUZK_HD_INLINE slot_range round_input(const scratch& sc, size_t total, size_t k0, size_t k, unsigned r) {
    if constexpr (FIRST) {
        return {0, unsigned(total - (k0 + k) * sc.chunk < sc.chunk ? total - (k0 + k) * sc.chunk : sc.chunk)};
    } else {
        const unsigned n = sc.count[k];
        return {walks_forward(r - 1) ? 0 : sc.chunk - n, n};
    }
}

// Round 0's pairs for chunk k of the batch starting at chunk k0: walks the sorted pairs from the back and
// pairs adjacent points of one bucket (an odd run leaves its first point alone); stores, per pair, the
// product of the x differences of the pairs behind it, and the chunk's total product in totals[k].
template <class F>
CUZK_HD_INLINE void pair_products_first(const scratch& sc, const dev_affine<F>* points, const uint32_t* keys_sorted,
                                        const uint32_t* vals_sorted, size_t total, size_t k0, size_t k, unsigned c,
                                        F* totals) {
    const pair_keys pk(c);
    const chunk_source<F, true> src{sc, points, keys_sorted, vals_sorted, (k0 + k) * sc.chunk, k};
    const unsigned n = round_input<true>(sc, total, k0, k, 0).n;
    word* products = sc.products[0];
    F run = F::one();
    pair_marks paired;
    unsigned q = 0;  // pairs so far, counted from the back
    if (n >= 2) {
        unsigned j = n - 1;
        uint32_t kj = src.key(j);
        F xj = src.x(j);
        // In lockstep (see "Lockstep" above): down to the next pair (j - 1, j) without multiplying, then
        // its difference multiplied in, once per outer iteration.
        for (;;) {
            bool found = false;
            F xi;
            while (j >= 1) {
                const uint32_t ki = src.key(j - 1);
                xi = src.x(j - 1);
                if (ki == kj && !pk.zero_digit(kj) && !xi.is_zero() && !xj.is_zero() && !(xi == xj)) {
                    found = true;
                    break;
                }
                --j;
                kj = ki;
                xj = xi;
            }
            if (!found) break;
            store_words(products, sc.pair_slots, size_t(q) * sc.segs + k, run);
            run = run * (xj - xi);
            ++q;
            paired.set(j - 1);
            if (j < 3) break;
            j -= 2;
            kj = src.key(j);
            xj = src.x(j);
        }
    }
    sc.store_marks(k, paired);
    totals[k] = run;
}

// Group g of the chunk totals, |group| of them: inverses[i] = 1 / totals[i] for i in [g group, (g + 1) group)
// below n: prefix products, one inversion, and back (3 multiplications per total). No total is zero: pairs
// have distinct x. Each total is loaded an iteration before its multiplication.
template <class F>
CUZK_HD_INLINE void invert_group(const F* totals, F* inverses, size_t n, size_t g, unsigned group = INVERT_GROUP) {
    const size_t lo = g * group;
    if (lo >= n) return;
    const size_t hi = n < lo + group ? n : lo + group;
    F run = F::one();
    F next = load_value(totals + lo);
    for (size_t i = lo; i < hi; ++i) {
        const F t = next;
        if (i + 1 < hi) next = load_value(totals + i + 1);
        store_value(inverses + i, run);
        run = run * t;
    }
    F inv = run.inverse_fast();
    for (size_t i = hi; i-- > lo;) {
        const F before = load_value<F>(inverses + i), t = load_value(totals + i);
        store_value(inverses + i, inv * before);
        inv = inv * t;
    }
}

// Round r + 1's pairs, chosen in the order round r wrote its outputs: an output pairs with the output just before
// it when both are of one bucket with distinct, nonzero x and that one is not paired yet (greedy in the
// order of the walk). Per pair, the running product of the x differences (higher slot minus lower) before
// it goes to |products|, in the order the pairs are made; round r + 1 walks the other way and meets them
// in reverse, as Montgomery's trick needs. The pending output's x is kept in registers (the pairs' own pass
// has registers to spare).
template <class F>
struct next_round {
    F run = F::one();
    pair_marks paired;
    unsigned q = 0;
    bool pending = false;  // the previous output is unpaired
    uint32_t pending_key = 0;
    unsigned pending_slot = 0;
    F kept_x = F::zero();  // the pending output's x

    // |x|: the output's x, now in |slot|. Whether it pairs with the pending output; if so, the pair's x
    // difference in |dx| (marked, not yet multiplied in: take does that), else it becomes the pending one.
    CUZK_HD_INLINE bool match(unsigned slot, uint32_t key, const F& x, bool forward, F& dx) {
        if (pending && key == pending_key && !x.is_zero()) {
            const F px = kept_x;
            if (!px.is_zero() && !(x == px)) {
                dx = forward ? x - px : px - x;
                paired.set(forward ? pending_slot : slot);
                pending = false;
                return true;
            }
        }
        pending = true;
        pending_key = key;
        pending_slot = slot;
        kept_x = x;
        return false;
    }
    // The matched pair's running product: stored for the sums, then its difference multiplied in.
    CUZK_HD_INLINE void take(const scratch& sc, word* products, size_t k, const F& dx) {
        store_words(products, sc.pair_slots, size_t(q) * sc.segs + k, run);
        run = run * dx;
        ++q;
    }
};

// Round r's pairs (r >= 1) in a pass of their own: the slots in the order round r - 1 wrote them
// (FORWARD = walks_forward(r - 1)).
template <class F, bool FORWARD>
CUZK_HD_INLINE void pair_products_slots(const scratch& sc, size_t total, size_t k0, size_t k, unsigned r, F* totals) {
    const chunk_source<F, false> src{sc, nullptr, nullptr, nullptr, 0, k};
    const slot_range in = round_input<false>(sc, total, k0, k, r);
    word* products = sc.products[r % 2];
    next_round<F> next;
    // In lockstep (see "Lockstep" above): the slots up to the next pair are scanned without multiplying,
    // then the pair's difference is multiplied in, once per outer iteration.
    for (unsigned i = 0;;) {
        F dx;
        bool found = false;
        while (i < in.n && !found) {
            const unsigned j = FORWARD ? in.lo + i : in.lo + in.n - 1 - i;
            ++i;
            found = next.match(j, src.key(j), src.x(j), FORWARD, dx);
        }
        if (!found) break;
        next.take(sc, products, k, dx);
    }
    sc.store_marks(k, next.paired);
    totals[k] = next.run;
}

// Round r's sums for chunk k (FIRST: r = 0, from the sorted pairs; FORWARD = walks_forward(r); LOCKSTEP:
// one pair per outer step, or one slot per step, see "Lockstep" above, forward only). |inverses|: 1 / each
// chunk's total of round r.
template <class F, bool FIRST, bool FORWARD, bool LOCKSTEP = true>
CUZK_HD_INLINE void pair_sums(const scratch& sc, const dev_affine<F>* points, const uint32_t* keys_sorted,
                              const uint32_t* vals_sorted, size_t total, size_t k0, size_t k, unsigned c, unsigned r,
                              const F* inverses) {
    static_assert(!FIRST || FORWARD, "round 0 walks forward");
    static_assert(LOCKSTEP || FORWARD, "the step-by-step walk is forward only");
    const pair_keys pk(c);
    const chunk_source<F, FIRST> src{sc, points, keys_sorted, vals_sorted, (k0 + k) * sc.chunk, k};
    const slot_range in = round_input<FIRST>(sc, total, k0, k, r);
    const pair_marks paired = sc.load_marks(k);
    const word* products = sc.products[r % 2];
    unsigned q = paired.count();
    F inv = inverses[k];  // 1 / (product of all the chunk's differences)
    unsigned out = 0;
    // Slots lo and lo + 1 summed (P + Q, distinct x).
    auto add_pair = [&](unsigned lo) {
        const dev_affine<F> a = src.point(lo), b = src.point(lo + 1);
        --q;
        const F dx = b.x - a.x;
        const F dx_inv = inv * load_words<F>(products, sc.pair_slots, size_t(q) * sc.segs + k);
        inv = inv * dx;
        const F l = (b.y - a.y) * dx_inv;
        dev_affine<F> s;
        s.x = l.sqr() - a.x - b.x;
        s.y = l * (a.x - s.x) - a.y;
        return s;
    };
    // The next output: written to its place unless it is the point already there (|from|: the slot it was
    // read from, or MADE for a sum).
    constexpr unsigned MADE = ~0u;
    auto emit = [&](uint32_t key, const dev_affine<F>& p, unsigned from) {
        const unsigned slot = FORWARD ? out : sc.chunk - 1 - out;
        if (FIRST || slot != from) src.store(slot, key, p);
        ++out;
    };
    if constexpr (LOCKSTEP) {
        // In lockstep (see "Lockstep" above): the unpaired points up to the next pair are copied in an inner
        // loop, then the pair is added, once per outer iteration.
        if constexpr (FORWARD) {
            const unsigned end = in.lo + in.n;
            for (unsigned j = in.lo;;) {
                for (; j < end && !paired.test(j); ++j) {
                    const uint32_t key = src.key(j);
                    if (!(FIRST && pk.zero_digit(key))) emit(key, src.point(j), j);
                }
                if (j >= end) break;
                emit(src.key(j), add_pair(j), MADE);
                j += 2;
            }
        } else {
            // t: the slots below t are still to be read; the next one, t - 1, pairs with t - 2 when marked.
            for (unsigned t = in.lo + in.n;;) {
                for (; t > in.lo && !(t - 1 > in.lo && paired.test(t - 2)); --t)
                    emit(src.key(t - 1), src.point(t - 1), t - 1);
                if (t == in.lo) break;
                emit(src.key(t - 1), add_pair(t - 2), MADE);
                t -= 2;
            }
        }
    } else {
        for (unsigned j = in.lo; j < in.lo + in.n;) {
            const uint32_t key = src.key(j);
            if (paired.test(j)) {
                emit(key, add_pair(j), MADE);
                j += 2;
            } else {
                if (!(FIRST && pk.zero_digit(key))) emit(key, src.point(j), j);
                ++j;
            }
        }
    }
    sc.count[k] = out;
}

// The points chunk k holds after the last round (|rounds| of them), summed run by run with mixed XYZZ
// additions into chunk_results. Whether a run starts or ends in the chunk is read from the sorted keys
// around the chunk. The slots hold ascending keys whichever way the last round walked.
template <class F>
CUZK_HD_INLINE void accumulate_rest(const scratch& sc, const uint32_t* keys_sorted, size_t total, size_t k0, size_t k,
                                    unsigned c, unsigned rounds, const chunk_results<dev_xyzz<F>>& out) {
    const size_t g = k0 + k, s = g * sc.chunk, e = total < s + sc.chunk ? total : s + sc.chunk;
    const pair_keys pk(c);
    const chunk_source<F, false> src{sc, nullptr, nullptr, nullptr, s, k};
    out.clear(g);
    const slot_range in = round_input<false>(sc, total, k0, k, rounds);
    if (in.n == 0) return;
    uint32_t cur = src.key(in.lo);
    bool starts_here = s == 0 || keys_sorted[s - 1] != cur;
    dev_xyzz<F> acc = dev_xyzz<F>::identity();
    // In lockstep (see "Lockstep" above): run ends (their results written), identity points and each
    // run's first point (taken as it is) in an inner loop, then one mixed addition per outer iteration.
    const unsigned end = in.lo + in.n;
    for (unsigned j = in.lo;;) {
        dev_affine<F> p;
        bool add = false;
        while (j < end) {
            const uint32_t key = src.key(j);
            if (key != cur) {
                out.write(g, pk, cur, starts_here, true, acc);
                acc = dev_xyzz<F>::identity();
                cur = key;
                starts_here = true;
            }
            p = src.point(j);
            ++j;
            if (p.is_identity()) continue;
            if (!acc.is_identity()) {
                add = true;
                break;
            }
            acc.x = p.x;
            acc.y = p.y;
            acc.zz = F::one();
            acc.zzz = F::one();
        }
        if (!add) break;
        acc.accumulate(p);
    }
    out.write(g, pk, cur, starts_here, e == total || keys_sorted[e] != cur, acc);
}

#if defined(__CUDACC__)
// ---- kernels: one thread per chunk --------------------------------------------------------------------

template <class F>
__global__ void pair_products_kernel(scratch sc, const dev_affine<F>* __restrict__ points,
                                     const uint32_t* __restrict__ keys_sorted, const uint32_t* __restrict__ vals_sorted,
                                     size_t total, size_t k0, size_t nseg, unsigned c, F* totals) {
    const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < nseg) pair_products_first(sc, points, keys_sorted, vals_sorted, total, k0, k, c, totals);
}

template <class F, bool FORWARD>
__global__ void pair_products_slots_kernel(scratch sc, size_t total, size_t k0, size_t nseg, unsigned r, F* totals) {
    const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < nseg) pair_products_slots<F, FORWARD>(sc, total, k0, k, r, totals);
}

template <class F>
__global__ void invert_totals_kernel(const F* __restrict__ totals, F* inverses, size_t n, unsigned group) {
    invert_group(totals, inverses, n, size_t(blockIdx.x) * blockDim.x + threadIdx.x, group);
}

template <class F, bool FIRST, bool FORWARD, bool LOCKSTEP>
__global__ void pair_sums_kernel(scratch sc, const dev_affine<F>* __restrict__ points,
                                 const uint32_t* __restrict__ keys_sorted, const uint32_t* __restrict__ vals_sorted,
                                 size_t total, size_t k0, size_t nseg, unsigned c, unsigned r,
                                 const F* __restrict__ inverses) {
    const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < nseg)
        pair_sums<F, FIRST, FORWARD, LOCKSTEP>(sc, points, keys_sorted, vals_sorted, total, k0, k, c, r, inverses);
}

// Round 0's sums step by step with the registers capped at 128 (G1): 16 warps per SM where the uncapped
// kernel takes 140 registers (12 warps), for 36 spilled bytes (msm_accumulate.cuh has the timings).
template <class F>
__global__ void __maxnreg__(128)
    pair_sums_capped_kernel(scratch sc, const dev_affine<F>* __restrict__ points,
                            const uint32_t* __restrict__ keys_sorted, const uint32_t* __restrict__ vals_sorted,
                            size_t total, size_t k0, size_t nseg, unsigned c, unsigned r,
                            const F* __restrict__ inverses) {
    const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < nseg)
        pair_sums<F, true, true, false>(sc, points, keys_sorted, vals_sorted, total, k0, k, c, r, inverses);
}

template <class F>
__global__ void accumulate_rest_kernel(scratch sc, const uint32_t* __restrict__ keys_sorted, size_t total, size_t k0,
                                       size_t nseg, unsigned c, unsigned rounds, chunk_results<dev_xyzz<F>> out) {
    const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < nseg) accumulate_rest(sc, keys_sorted, total, k0, k, c, rounds, out);
}

// The previous batch's XYZZ rest and the next batch's round-0 pairs in one launch, their blocks
// interleaved, so every SM runs both: the rest is bound by its multiplications, the pairs by their gathers
// of resident x coordinates, and side by side each hides the other (two launches run one after the other:
// each fills the GPU). |rest_blocks| and |pair_blocks| blocks of blockDim.x chunks.
template <class F>
__global__ void rest_and_pairs_kernel(scratch rest_sc, size_t rest_k0, size_t rest_nseg, unsigned rounds,
                                      chunk_results<dev_xyzz<F>> out, scratch pair_sc,
                                      const dev_affine<F>* __restrict__ points,
                                      const uint32_t* __restrict__ keys_sorted,
                                      const uint32_t* __restrict__ vals_sorted, size_t total, size_t pair_k0,
                                      size_t pair_nseg, unsigned c, F* totals, unsigned rest_blocks,
                                      unsigned pair_blocks) {
    const unsigned both = 2 * (rest_blocks < pair_blocks ? rest_blocks : pair_blocks);
    const unsigned b = blockIdx.x;
    const bool rest = b < both ? (b & 1) == 0 : rest_blocks > pair_blocks;
    const unsigned i = b < both ? b / 2 : b - both / 2;
    const size_t k = size_t(i) * blockDim.x + threadIdx.x;
    if (rest) {
        if (k < rest_nseg) accumulate_rest(rest_sc, keys_sorted, total, rest_k0, k, c, rounds, out);
    } else {
        if (k < pair_nseg) pair_products_first(pair_sc, points, keys_sorted, vals_sorted, total, pair_k0, k, c, totals);
    }
}
#endif

}  // namespace cuzk::cuda::batch_affine
