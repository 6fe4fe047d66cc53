// The GPU MSM's batch-affine rounds (gpud/cuda/msm_batch_affine.cuh) compiled for the host and run chunk by
// chunk in the order msm_run.cuh's accumulate_batch_affine launches them (round 0's pairs; per round the
// inversions, the sums, then the next round's pairs in a pass of their own; the XYZZ rest), against each
// bucket's sum made by the CPU curve code. Every machine, CI included, checks the rounds' pairing, the walks
// in both directions, the compaction in place and the chunk results; test_cuda_msm checks the same code on a
// GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "common/ec/xyzz.hpp"
#include "common/ff/bls12_381.hpp"
#include "common/ff/fp2.hpp"
#include "gpud/cuda/msm_batch_affine.cuh"
#include "support/curve_points.hpp"
#include "support/device_layout.hpp"

using namespace cuzk;
namespace ba = cuzk::cuda::batch_affine;

namespace {

using test::to_dev;

// Sorted (key, value) pairs of two windows of c = 4 (8 buckets each, local key 8 the zero digit), with runs
// of every length that matters to a chunk: empty, one, two, odd, longer than a chunk.
struct sorted_pairs {
    std::vector<uint32_t> keys, vals;
};
sorted_pairs make_pairs(std::mt19937_64& rng, size_t npoints, unsigned c) {
    static const unsigned lengths[] = {0, 1, 2, 3, 4, 5, 7, 17, 64, 65, 130};
    sorted_pairs p;
    const uint32_t half = 1u << (c - 1);
    for (uint32_t w = 0; w < 2; ++w) {
        for (uint32_t local = 0; local <= half; ++local) {
            const unsigned len = lengths[rng() % std::size(lengths)];
            for (unsigned i = 0; i < len; ++i) {
                p.keys.push_back((w << c) | local);
                uint32_t v = uint32_t(rng() % npoints);
                if (rng() % 3 == 0) v |= cuda::NEG_FLAG;
                p.vals.push_back(v);
            }
        }
    }
    return p;
}

// Points: random curve points, with repeats, negations and identities among them, so runs meet P = Q,
// P = -Q and x = 0, which the rounds must leave unpaired.
template <class HF>
std::vector<ec::affine_t<HF>> make_points(std::mt19937_64& rng, size_t n) {
    std::vector<ec::affine_t<HF>> pts;
    for (size_t i = 0; i < n; ++i) pts.push_back(test::random_curve_point<HF>(rng));
    for (size_t i = 1; i < n; i += 4) {
        switch (i % 3) {
            case 0: pts[i] = pts[i - 1]; break;
            case 1: pts[i] = -pts[i - 1]; break;
            default: pts[i] = ec::affine_t<HF>::identity(); break;
        }
    }
    return pts;
}

// |first_lockstep|: round 0's sums walk in lockstep form (one pair per outer iteration: G2) or step by step
// (G1); the later rounds' walk in lockstep.
template <class HF>
void check_rounds(unsigned rounds, unsigned chunk, size_t batch_chunks, uint64_t seed, bool first_lockstep) {
    using F = cuda::device_field_t<HF>;
    using B = ec::xyzz_t<F>;
    constexpr unsigned c = 4;
    std::mt19937_64 rng(seed);
    const auto host_pts = make_points<HF>(rng, 40);
    std::vector<cuda::dev_affine<F>> pts(host_pts.size());
    for (size_t i = 0; i < pts.size(); ++i) {
        if (!host_pts[i].is_identity()) pts[i] = {to_dev<F>(host_pts[i].x), to_dev<F>(host_pts[i].y)};
        else std::memset(static_cast<void*>(&pts[i]), 0, sizeof pts[i]);
    }
    const sorted_pairs sp = make_pairs(rng, pts.size(), c);
    const size_t total = sp.keys.size();
    ASSERT_GT(total, 0u);
    const size_t chunks = (total + chunk - 1) / chunk;
    const cuda::pair_keys pk(c);

    // One batch's scratch (reused batch after batch: on the host the batches run one after another).
    constexpr int W = cuda::words_of<F>;
    const size_t segs = std::min(chunks, batch_chunks);
    const size_t slots = segs * chunk, pair_slots = segs * std::max(1u, chunk / 2);
    std::vector<cuda::word> points(2 * W * slots), products(2 * W * pair_slots);
    std::vector<uint32_t> keys(slots), count(segs);
    std::vector<uint64_t> paired(ba::MARK_WORDS * segs);
    std::vector<F> totals(segs), inverses(segs);
    ba::scratch sc{points.data(), keys.data(), {products.data(), products.data() + W * pair_slots},
                   count.data(), paired.data(), segs, slots, pair_slots, chunk};

    const size_t nb = 2 * pk.half;
    std::vector<B> buckets(nb, B::identity()), head(chunks), tail(chunks);
    std::vector<uint8_t> head_state(chunks);
    std::vector<uint32_t> tail_bucket(chunks);
    const cuda::chunk_results<B> out{buckets.data(), head.data(), head_state.data(), tail.data(), tail_bucket.data()};

    for (size_t k0 = 0; k0 < chunks; k0 += segs) {
        const size_t nseg = std::min(segs, chunks - k0);
        for (size_t k = 0; k < nseg; ++k)
            ba::pair_products_first(sc, pts.data(), sp.keys.data(), sp.vals.data(), total, k0, k, c, totals.data());
        for (unsigned r = 0; r < rounds; ++r) {
            for (size_t g = 0; g * ba::INVERT_GROUP < nseg; ++g) ba::invert_group(totals.data(), inverses.data(), nseg, g);
            for (size_t k = 0; k < nseg; ++k) {
                auto run = [&]<bool FIRST, bool FORWARD, bool LOCKSTEP>() {
                    ba::pair_sums<F, FIRST, FORWARD, LOCKSTEP>(sc, pts.data(), sp.keys.data(), sp.vals.data(), total,
                                                               k0, k, c, r, inverses.data());
                };
                if (r == 0) {
                    if (first_lockstep) run.template operator()<true, true, true>();
                    else run.template operator()<true, true, false>();
                } else if (ba::walks_forward(r)) {
                    run.template operator()<false, true, true>();
                } else {
                    run.template operator()<false, false, true>();
                }
                ASSERT_LE(count[k], chunk);
                if (r + 1 < rounds) {
                    if (ba::walks_forward(r)) ba::pair_products_slots<F, true>(sc, total, k0, k, r + 1, totals.data());
                    else ba::pair_products_slots<F, false>(sc, total, k0, k, r + 1, totals.data());
                }
            }
        }
        for (size_t k = 0; k < nseg; ++k) ba::accumulate_rest(sc, sp.keys.data(), total, k0, k, c, rounds, out);
    }

    // Each bucket from the chunk results: whole runs, tails where a split run begins, heads where it goes on.
    std::vector<B> got = buckets;
    for (size_t k = 0; k < chunks; ++k) {
        if (tail_bucket[k] != cuda::NO_BUCKET) got[tail_bucket[k]].add(tail[k]);
        if (head_state[k] != 0) got[pk.bucket(sp.keys[k * chunk])].add(head[k]);
    }
    std::vector<ec::xyzz_t<HF>> want(nb, ec::xyzz_t<HF>::identity());
    for (size_t i = 0; i < total; ++i) {
        if (pk.zero_digit(sp.keys[i])) continue;
        ec::affine_t<HF> p = host_pts[sp.vals[i] & ~cuda::NEG_FLAG];
        if (sp.vals[i] & cuda::NEG_FLAG) p = -p;
        want[pk.bucket(sp.keys[i])].accumulate(p);
    }
    for (size_t b = 0; b < nb; ++b) {
        ec::xyzz_t<HF> g;
        std::memcpy(static_cast<void*>(&g), &got[b], sizeof g);
        EXPECT_EQ(g.to_jacobian(), want[b].to_jacobian())
            << "bucket " << b << " rounds " << rounds << " chunk " << chunk << " batch " << batch_chunks
            << (first_lockstep ? " round 0 in lockstep" : " round 0 step by step");
    }
}

}  // namespace

TEST(DeviceBatchAffineOnHost, G1RoundsMatchTheCpuBucketSums) {
    uint64_t seed = 1;
    for (unsigned rounds : {1u, 2u, 3u, 4u, 6u}) {
        for (unsigned chunk : {1u, 2u, 5u, 17u, 64u, 100u, 128u}) {
            for (size_t batch : {size_t(1), size_t(3), size_t(1000)}) {
                check_rounds<ff::fp_t>(rounds, chunk, batch, ++seed, false);
                check_rounds<ff::fp_t>(rounds, chunk, batch, ++seed, true);
            }
        }
    }
}

TEST(DeviceBatchAffineOnHost, G2RoundsMatchTheCpuBucketSums) {
    uint64_t seed = 100;
    for (unsigned rounds : {1u, 2u, 3u}) {
        for (unsigned chunk : {5u, 64u, 128u}) {
            check_rounds<ff::fp2_t>(rounds, chunk, 3, ++seed, true);
            check_rounds<ff::fp2_t>(rounds, chunk, 3, ++seed, false);
        }
    }
}
