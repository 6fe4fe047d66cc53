// The GPU MSM's window widths (msm_run.cuh): a cost model of the accumulation and the bucket reduction per width,
// with and without precomputed window multiples, and the rule for when G1 takes the batch-affine rounds.
// Host code only, so every machine tests the choices it makes (tests/test_device_msm_window.cpp).
#pragma once

#include <cmath>
#include <cstddef>

namespace cuzk::cuda {

// G1 takes the batch-affine rounds where there are at least this many sorted pairs, and at least
// AFFINE_RUN per bucket on average (long runs of one bucket pair well), through the precomputed window
// multiples or not. On an H200 (docs/benchmarks-history.md): 2^24 random through multiples at c = 22 (2^27.6 pairs, 96
// per bucket) 92.1 ms against 99.5 with the XYZZ sum; 2^26 random at c = 24 (88) 334.0 against 360.3; 2^27
// random without multiples (the H query; c = 22, 64 per bucket) 745.8 against 793.5. The XYZZ sum won below
// (measured before the rest ran beside the next pairs and before the faster inversion): 2^20 random
// (2^24 pairs) 9.9 against 10.4, 2^24 random at c = 24 (22 per bucket) 101.2 against 107.4, 2^26 PoRep-like
// at c = 22 (38 per bucket) 62.3 against 63.5.
// 48, not 64: the partition's H query has 2^27 - 1 points, just under 64 per bucket at c = 22.
constexpr size_t AFFINE_PAIRS = size_t(1) << 25;
constexpr size_t AFFINE_RUN = 48;

// Whether G1's accumulation takes the batch-affine rounds by default for |pairs| sorted pairs in
// |buckets| buckets.
inline bool affine_runs_pay(size_t pairs, size_t buckets) {
    return pairs >= AFFINE_PAIRS && pairs >= AFFINE_RUN * buckets;
}
// The widest plain window (12 windows x 2^21 buckets, 4.8 GB of G1 buckets) and the widest window of the
// precomputed multiples (24: the digit kernel's key bits and 2^23 buckets, 1.6 GB for G1).
constexpr unsigned MAX_PLAIN_WINDOW = 22;
constexpr unsigned MAX_MULTIPLES_WINDOW = 24;

// Window width from the number of Pippenger scalars m, minimising m W a + 3 W 2^(c-1) for W = ceil(256/c)
// windows: m W pair additions to accumulate, about two XYZZ additions (~3 mixed ones) per bucket to reduce.
// a: a pair's cost against a mixed XYZZ addition, 1 except where G1 takes the batch-affine rounds by default
// (affine_runs_pay), where it falls with the runs per bucket. Measured on an H200
// (docs/benchmarks-history.md; accumulation time per sorted pair): mixed XYZZ (accumulate_xyzz_kernel) 0.427 ns; batch-
// affine 0.386 ns at 32 points per bucket, 0.348 at 64, 0.343 at 128, 0.338 at 256: a = 0.90 at 32 down to 0.81
// from 64, linear in log2 of the run between. Without it the model took c = 20 for 2^24 random scalars (32 per
// bucket, the XYZZ kernel: 109.6 ms) where c = 18 (128 per bucket, batch-affine) took 97.9, and c = 20 for the
// 13.4M random scalars of a 2^27 PoRep-like MSM (125.3 ms) where c = 18 took 115.7. With it: 2^24 random
// c = 19, 97.5 ms; 2^26 random c = 20, 329.4 against 401.1 at c = 22; 2^27 PoRep-like c = 19, 117.0; the
// partition's L and A (c = 18) 112.6 ms each against 122.1, B_G1 (c = 16) 42.0 against 47.5; the H MSM keeps
// c = 22 (638.3 ms against 646.0 at c = 20). MAX_PLAIN_WINDOW bounds bucket memory.
inline unsigned windows_for(unsigned c) { return (256 + c - 1) / c; }
// |pairs| sorted pairs in |buckets| buckets.
inline double pair_cost(bool g1, size_t pairs, size_t buckets) {
    if (!g1 || !affine_runs_pay(pairs, buckets)) return 1.0;
    const double run = double(pairs) / double(buckets);
    return run >= 64 ? 0.81 : 0.90 - 0.09 * std::log2(run / 32);
}
inline double plain_cost(bool g1, size_t m, unsigned c) {
    const size_t w = windows_for(c), buckets = size_t(1) << (c - 1);
    return double(m * w) * pair_cost(g1, m * w, w * buckets) + 3.0 * double(w * buckets);
}
inline unsigned choose_window(bool g1, size_t m) {
    unsigned best = 6;
    for (unsigned c = 7; c <= MAX_PLAIN_WINDOW; ++c) {
        if (plain_cost(g1, m, c) < plain_cost(g1, m, best)) best = c;
    }
    return best;
}
// With precomputed multiples every window's digits share one set of buckets: m W additions and one
// window's reduction, so wider windows pay (fewer of them) until the 2^(c-1) buckets' reduction weighs.
// The width of the multiples is chosen with a = 1 (the widths measured against the targets, 22 at 2^24 and
// 24 at 2^26, are what it gives); whether to run through them is decided against plain_cost with each side's
// own pair cost (g1: the multiples' runs per bucket are W times the plain ones').
inline double multiples_cost(bool g1, size_t m, unsigned c) {
    const size_t pairs = m * windows_for(c), buckets = size_t(1) << (c - 1);
    return double(pairs) * pair_cost(g1, pairs, buckets) + 3.0 * double(buckets);
}
inline unsigned choose_multiples_window(size_t n) {
    unsigned best = 16;
    for (unsigned c = 17; c <= MAX_MULTIPLES_WINDOW; ++c) {
        if (multiples_cost(false, n, c) < multiples_cost(false, n, best)) best = c;
    }
    return best;
}

}  // namespace cuzk::cuda
