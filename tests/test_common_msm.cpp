// Multi-scalar multiplication (common/msm) against a naive sum of scalar multiplications, for G1
// and G2, over the scalar shapes the prover meets: random, mostly 0/1, edge values, repeated points
// and identity points; and the pieces it is built from (digit recoding, XYZZ and batched affine
// additions).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/ec/xyzz.hpp"
#include "common/msm/msm.hpp"

using namespace cuzk;
using namespace cuzk::ec;
using cuzk::ff::fr_t;
using cuzk::msm::scalar_repr_t;

namespace {

// Distinct points cheaply: P_i = (i + 1) * base * seed-dependent offset, built by additions.
template <class F>
std::vector<affine_t<F>> make_points(const affine_t<F>& gen, size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    jacobian_t<F> start = jacobian_t<F>::from_affine(gen).mul(fr_t::random(rng));
    jacobian_t<F> step = jacobian_t<F>::from_affine(gen).mul(fr_t::random(rng));
    std::vector<jacobian_t<F>> jac(n);
    jacobian_t<F> acc = start;
    for (size_t i = 0; i < n; ++i) {
        jac[i] = acc;
        acc = acc + step;
    }
    std::vector<affine_t<F>> out(n);
    batch_to_affine(jac.data(), out.data(), n);
    return out;
}

template <class F>
jacobian_t<F> naive_msm(const std::vector<affine_t<F>>& pts, const std::vector<fr_t>& sc) {
    jacobian_t<F> acc;
    for (size_t i = 0; i < pts.size(); ++i) acc = acc + jacobian_t<F>::from_affine(pts[i]).mul(sc[i]);
    return acc;
}

std::vector<scalar_repr_t> canonical(const std::vector<fr_t>& sc) {
    std::vector<scalar_repr_t> out(sc.size());
    for (size_t i = 0; i < sc.size(); ++i) out[i] = sc[i].to_canonical();
    return out;
}

enum class shape { random, zero_one_heavy, edge };

std::vector<fr_t> make_scalars(size_t n, shape s, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<fr_t> out(n);
    for (size_t i = 0; i < n; ++i) {
        switch (s) {
            case shape::random:
                out[i] = fr_t::random(rng);
                break;
            case shape::zero_one_heavy: {
                uint64_t u = rng() % 100;
                out[i] = u < 45 ? fr_t::zero() : u < 90 ? fr_t::one() : fr_t::random(rng);
                break;
            }
            case shape::edge: {
                // 0, 1, r - 1, 2^k, -2^k, 2^k - 1 and small values: the recoding's corner cases.
                unsigned k = unsigned(rng() % 255);
                scalar_repr_t p{};
                p[k / 64] = uint64_t(1) << (k % 64);
                fr_t two_k = fr_t::from_canonical(p);
                switch (rng() % 7) {
                    case 0: out[i] = fr_t::zero(); break;
                    case 1: out[i] = fr_t::one(); break;
                    case 2: out[i] = -fr_t::one(); break;
                    case 3: out[i] = two_k; break;
                    case 4: out[i] = -two_k; break;
                    case 5: out[i] = two_k - fr_t::one(); break;
                    default: out[i] = fr_t::from_u64(rng() % 70000); break;
                }
                break;
            }
        }
    }
    return out;
}

template <class F>
void check_all_paths(const std::vector<affine_t<F>>& pts, const std::vector<fr_t>& sc) {
    jacobian_t<F> want = naive_msm(pts, sc);
    std::span<const affine_t<F>> ps(pts);
    EXPECT_EQ(msm::multi_exp<F>(ps, sc), want) << "multi_exp n=" << pts.size();
    auto canon = canonical(sc);
    EXPECT_EQ(msm::pippenger<F>(ps, canon), want) << "pippenger auto n=" << pts.size();
    // Both bucket representations, several window widths and a forced split of the points into
    // ranges (threads = 8 on any machine makes the planner split small inputs too).
    for (auto mode : {msm::bucket_mode::xyzz, msm::bucket_mode::batch_affine}) {
        for (unsigned c : {2u, 5u, 8u, 13u}) {
            msm::pippenger_options opt;
            opt.mode = mode;
            opt.window_bits = c;
            opt.threads = 8;
            EXPECT_EQ(msm::pippenger<F>(ps, canon, opt), want)
                << "pippenger n=" << pts.size() << " c=" << c << " mode=" << int(mode);
        }
    }
}

}  // namespace

TEST(MsmRecoding, SignedDigitsReconstructTheScalar) {
    std::mt19937_64 rng(7);
    for (unsigned c = 1; c <= 20; ++c) {
        unsigned windows = msm::detail::window_count(c);
        for (int t = 0; t < 50; ++t) {
            scalar_repr_t k = fr_t::random(rng).to_canonical();
            if (t == 0) k = (-fr_t::one()).to_canonical();
            if (t == 1) k = scalar_repr_t{~0ull, ~0ull, ~0ull, 0x7fffffffffffffffull};  // 2^255 - 1
            // sum_w d_w 2^(c w), evaluated in Fr so 2^255 - 1 wraps consistently.
            fr_t sum = fr_t::zero(), base = fr_t::one(), radix = fr_t::from_u64(2).pow(uint64_t(c));
            int64_t half = int64_t(1) << (c - 1);
            for (unsigned w = 0; w < windows; ++w) {
                msm::detail::window_recoder rec(c, w);
                int32_t d = rec.digit(k);
                ASSERT_LE(d, half);
                ASSERT_GE(d, -half);
                fr_t dd = fr_t::from_u64(uint64_t(d < 0 ? -int64_t(d) : d));
                sum += (d < 0 ? -dd : dd) * base;
                base *= radix;
            }
            EXPECT_EQ(sum, fr_t::from_repr_reduced(k)) << "c=" << c;
        }
    }
}

TEST(MsmXyzz, AccumulateAndAddMatchJacobian) {
    auto pts = make_points(g1_generator(), 8, 3);
    g1_xyzz_t acc;
    g1_jacobian_t want;
    for (const auto& p : pts) {
        acc.accumulate(p);
        want = want.add_mixed(p);
        EXPECT_EQ(acc.to_jacobian(), want);
    }
    // Doubling through accumulate and add, cancellation, identity operands.
    g1_xyzz_t d = g1_xyzz_t::from_affine(pts[0]);
    d.accumulate(pts[0]);
    EXPECT_EQ(d.to_jacobian(), g1_jacobian_t::from_affine(pts[0]).dbl());
    g1_xyzz_t e = acc;
    e.add(acc);
    EXPECT_EQ(e.to_jacobian(), want.dbl());
    g1_xyzz_t f = acc;
    f.add(-acc);
    EXPECT_TRUE(f.is_identity());
    g1_xyzz_t g = g1_xyzz_t::from_affine(pts[1]);
    g.accumulate_neg(pts[1]);
    EXPECT_TRUE(g.is_identity());
    g1_xyzz_t h;
    h.add(acc);
    h.accumulate(g1_affine_t::identity());
    EXPECT_EQ(h.to_jacobian(), want);
    EXPECT_EQ(g1_xyzz_t::from_jacobian(want.dbl()).to_jacobian(), want.dbl());
}

TEST(MsmAffineBatch, BatchAddHandlesDoublingAndCancellation) {
    auto pts = make_points(g1_generator(), 6, 4);
    std::vector<g1_affine_t> acc = {pts[0], pts[1], pts[2], pts[3]};
    std::vector<g1_affine_t> addend = {pts[4], pts[1], -pts[2], pts[5]};
    std::vector<g1_affine_t*> ap;
    std::vector<const g1_affine_t*> bp;
    for (size_t i = 0; i < 4; ++i) {
        ap.push_back(&acc[i]);
        bp.push_back(&addend[i]);
    }
    msm::affine_batch_scratch<fp_t> s;
    msm::batch_add_in_place(ap.data(), bp.data(), 4, s);
    EXPECT_EQ(acc[0], (g1_jacobian_t::from_affine(pts[0]).add_mixed(pts[4])).to_affine());
    EXPECT_EQ(acc[1], g1_jacobian_t::from_affine(pts[1]).dbl().to_affine());
    EXPECT_TRUE(acc[2].is_identity());
    EXPECT_EQ(acc[3], (g1_jacobian_t::from_affine(pts[3]).add_mixed(pts[5])).to_affine());
}

TEST(MsmAffineBatch, TreeSumMatchesSequentialSum) {
    auto pts = make_points(g1_generator(), 300, 5);
    // Duplicates and negations in the middle of the tree.
    pts[10] = pts[11];
    pts[20] = -pts[21];
    pts[30] = g1_affine_t::identity();
    g1_jacobian_t want;
    for (const auto& p : pts) want = want.add_mixed(p);
    std::vector<g1_affine_t> work = pts;
    EXPECT_EQ(msm::sum_affine_tree(work, 16), want);
}

TEST(MsmG1, RandomScalarsMatchNaiveSum) {
    for (size_t n : {0, 1, 2, 3, 100, 1000}) {
        auto pts = make_points(g1_generator(), n, 10 + n);
        check_all_paths(pts, make_scalars(n, shape::random, 20 + n));
    }
}

TEST(MsmG1, ZeroOneHeavyScalarsMatchNaiveSum) {
    for (size_t n : {3, 100, 5000}) {
        auto pts = make_points(g1_generator(), n, 30 + n);
        auto sc = make_scalars(n, shape::zero_one_heavy, 40 + n);
        msm::msm_stats st;
        EXPECT_EQ(msm::multi_exp<fp_t>(pts, sc, &st), naive_msm(pts, sc));
        EXPECT_EQ(st.zeros + st.ones + st.others, n);
        size_t zeros = 0, ones = 0;
        for (const auto& s : sc) {
            zeros += s.is_zero();
            ones += s.is_one();
        }
        EXPECT_EQ(st.zeros, zeros);
        EXPECT_EQ(st.ones, ones);
        if (n == 100) check_all_paths(pts, sc);
    }
}

TEST(MsmG1, LargeInputUsesBatchedBucketsCorrectly) {
    // ~5000 random scalars: enough for the planner to pick batched affine buckets and big windows.
    const size_t n = 5000;
    auto pts = make_points(g1_generator(), n, 50);
    auto sc = make_scalars(n, shape::random, 51);
    g1_jacobian_t want = naive_msm(pts, sc);
    EXPECT_EQ(msm::multi_exp<fp_t>(pts, sc), want);
    msm::pippenger_options opt;
    opt.mode = msm::bucket_mode::batch_affine;
    opt.window_bits = 11;
    EXPECT_EQ(msm::pippenger<fp_t>(pts, canonical(sc), opt), want);
}

TEST(MsmG1, EdgeScalarsMatchNaiveSum) {
    auto pts = make_points(g1_generator(), 1000, 60);
    check_all_paths(pts, make_scalars(1000, shape::edge, 61));
}

TEST(MsmG1, RepeatedPointsAndIdentitiesMatchNaiveSum) {
    auto pts = make_points(g1_generator(), 1000, 70);
    // Runs of one point with one scalar: every window hits the same bucket again and again, the
    // worst case for batched buckets (conflicts) and for the tree sum (doublings).
    for (size_t i = 0; i < 300; ++i) pts[i] = pts[0];
    for (size_t i = 300; i < 400; ++i) pts[i] = g1_affine_t::identity();
    for (size_t i = 400; i < 500; ++i) pts[i] = -pts[0];
    auto sc = make_scalars(1000, shape::random, 71);
    for (size_t i = 0; i < 200; ++i) sc[i] = sc[0];
    for (size_t i = 500; i < 600; ++i) sc[i] = fr_t::one();
    check_all_paths(pts, sc);
}

TEST(MsmG1, AllIdentityPointsGiveIdentity) {
    std::vector<g1_affine_t> pts(100, g1_affine_t::identity());
    auto sc = make_scalars(100, shape::zero_one_heavy, 80);
    EXPECT_TRUE(msm::multi_exp<fp_t>(pts, sc).is_identity());
    EXPECT_TRUE(msm::pippenger<fp_t>(pts, canonical(sc)).is_identity());
}

TEST(MsmG1, ScalarTimesPointAndItsNegationCancel) {
    auto pts = make_points(g1_generator(), 2, 90);
    pts[1] = pts[0];
    std::mt19937_64 rng(91);
    fr_t k = fr_t::random(rng);
    std::vector<fr_t> sc = {k, -k};
    EXPECT_TRUE(msm::multi_exp<fp_t>(pts, sc).is_identity());
}

TEST(MsmG2, RandomScalarsMatchNaiveSum) {
    for (size_t n : {0, 1, 2, 3, 100}) {
        auto pts = make_points(g2_generator(), n, 100 + n);
        check_all_paths(pts, make_scalars(n, shape::random, 110 + n));
    }
}

TEST(MsmG2, ZeroOneHeavyAndEdgeScalarsMatchNaiveSum) {
    auto pts = make_points(g2_generator(), 1000, 120);
    for (size_t i = 0; i < 50; ++i) pts[i] = pts[60];
    for (size_t i = 100; i < 120; ++i) pts[i] = g2_affine_t::identity();
    auto sc = make_scalars(1000, shape::zero_one_heavy, 121);
    EXPECT_EQ(msm::multi_exp<fp2_t>(pts, sc), naive_msm(pts, sc));
    auto edge = make_scalars(1000, shape::edge, 122);
    EXPECT_EQ(msm::multi_exp<fp2_t>(pts, edge), naive_msm(pts, edge));
}
