// The CUDA backend's share of device memory between its G1 and G2 MSM scratch (gpud/scratch_plan.hpp):
// no limit where both fit, G1 unlimited where its need and G2's least fit, proportional shares raised to
// each context's least below that, and "does not fit" (each at its least) where even the leasts exceed
// what is available; streamed segments and the points split between the device and host memory.
#include <gtest/gtest.h>

#include "gpud/scratch_plan.hpp"

using cuzk::gpud::choose_points_split;
using cuzk::gpud::choose_segments;
using cuzk::gpud::largest_run;
using cuzk::gpud::points_split;
using cuzk::gpud::stream_segments;
using cuzk::gpud::plan_scratch;
using cuzk::gpud::scratch_demand;

namespace {
constexpr size_t GiB = size_t(1) << 30;
}

TEST(ScratchPlan, NoLimitWhereBothNeedsFit) {
    auto p = plan_scratch(100 * GiB, {60 * GiB, 10 * GiB}, {20 * GiB, 8 * GiB});
    EXPECT_EQ(p.g1_limit, 0u);
    EXPECT_EQ(p.g2_limit, 0u);
    EXPECT_TRUE(p.fits);
    EXPECT_NE(p.summary().find("unlimited"), std::string::npos) << p.summary();
    // Exactly at the sum: still no limit.
    p = plan_scratch(80 * GiB, {60 * GiB, 10 * GiB}, {20 * GiB, 8 * GiB});
    EXPECT_EQ(p.g1_limit, 0u);
}

TEST(ScratchPlan, G1FirstWhereItsNeedAndG2sLeastFit) {
    auto p = plan_scratch(70 * GiB, {60 * GiB, 10 * GiB}, {20 * GiB, 8 * GiB});
    EXPECT_TRUE(p.fits);
    EXPECT_EQ(p.g1_limit, 0u);
    EXPECT_EQ(p.g2_limit, 10 * GiB);
    EXPECT_NE(p.summary().find("G1 unlimited, G2 10.0 GiB"), std::string::npos) << p.summary();
    p = plan_scratch(68 * GiB, {60 * GiB, 10 * GiB}, {20 * GiB, 8 * GiB});
    EXPECT_EQ(p.g1_limit, 0u);
    EXPECT_EQ(p.g2_limit, 8 * GiB);
}

TEST(ScratchPlan, ProportionalSharesAboveEachLeast) {
    // 40 of 80 needed: halves of each need, both above their leasts.
    auto p = plan_scratch(40 * GiB, {60 * GiB, 10 * GiB}, {20 * GiB, 8 * GiB});
    EXPECT_TRUE(p.fits);
    EXPECT_EQ(p.g1_limit + p.g2_limit, 40 * GiB);
    EXPECT_NEAR(double(p.g2_limit), 10.0 * GiB, 1.0);
    EXPECT_NE(p.summary().find("G1 30.0 GiB, G2 10.0 GiB"), std::string::npos) << p.summary();
    // 20 available: G2's proportional share (5) is below its least (8): it gets 8, G1 the other 12.
    p = plan_scratch(20 * GiB, {60 * GiB, 10 * GiB}, {20 * GiB, 8 * GiB});
    EXPECT_TRUE(p.fits);
    EXPECT_EQ(p.g2_limit, 8 * GiB);
    EXPECT_EQ(p.g1_limit, 12 * GiB);
    // 19 available: G1's share would fall below its least (10): G1 keeps 10, G2 the other 9.
    p = plan_scratch(19 * GiB, {60 * GiB, 10 * GiB}, {2 * GiB, 1 * GiB});
    EXPECT_TRUE(p.fits);
    EXPECT_GE(p.g1_limit, 10 * GiB);
    EXPECT_EQ(p.g1_limit + p.g2_limit, 19 * GiB);
}

TEST(ScratchPlan, LeastsThatDoNotFitAreReported) {
    auto p = plan_scratch(15 * GiB, {60 * GiB, 10 * GiB}, {20 * GiB, 8 * GiB});
    EXPECT_FALSE(p.fits);
    EXPECT_EQ(p.g1_limit, 10 * GiB);
    EXPECT_EQ(p.g2_limit, 8 * GiB);
    EXPECT_NE(p.summary().find("may fail to allocate"), std::string::npos) << p.summary();
    // Nothing available at all, a G2 context with no demand: limits stay non-zero (zero would mean none).
    p = plan_scratch(0, {60 * GiB, 10 * GiB}, {0, 0});
    EXPECT_FALSE(p.fits);
    EXPECT_EQ(p.g2_limit, 1u);
}

// Streamed segments: the largest (2^25 G1, 2^24 G2) where they fit, never more than the queries hold, halved
// together while the device need exceeds what is free, and "does not fit" below 2^20 G1 points.
TEST(StreamSegments, LargestThatFitHalvedTogether) {
    // Need: 192 bytes per G1 and 384 per G2 segment point (two buffers each) plus 1 GiB beside.
    auto need = [](size_t g1, size_t g2) { return g1 * 192 + g2 * 384 + GiB; };
    auto s = choose_segments(size_t(1) << 27, 44000000, 40 * GiB, need);
    EXPECT_TRUE(s.fits);
    EXPECT_EQ(s.g1, size_t(1) << 25);
    EXPECT_EQ(s.g2, size_t(1) << 24);
    s = choose_segments(1000, 10, 40 * GiB, need);  // small queries: one segment each
    EXPECT_EQ(s.g1, 1000u);
    EXPECT_EQ(s.g2, 10u);
    s = choose_segments(size_t(1) << 27, 0, 40 * GiB, need);  // B_G2 on the CPU: no G2 segment
    EXPECT_EQ(s.g2, 0u);
    // 2^25 G1 + 2^24 G2 need 13 GiB: with 8 free, halved once (6.5 + 1 GiB fit).
    s = choose_segments(size_t(1) << 27, 44000000, 8 * GiB, need);
    EXPECT_TRUE(s.fits);
    EXPECT_EQ(s.g1, size_t(1) << 24);
    EXPECT_EQ(s.g2, size_t(1) << 23);
    EXPECT_LE(need(s.g1, s.g2), 8 * GiB);
    // Not even 2^20 G1 points and 1 GiB beside.
    s = choose_segments(size_t(1) << 27, 44000000, GiB, need);
    EXPECT_FALSE(s.fits);
    EXPECT_EQ(s.g1, size_t(1) << 20);
}

// The largest run over a context split at |resident|: a query's resident part, or a segment where anything streams.
TEST(PointsSplit, LargestRunIsAResidentPartOrASegment) {
    const std::vector<size_t> q = {1000, 3000, 200};
    EXPECT_EQ(largest_run(q, 4200, 64), 3000u) << "all resident: the largest query, no segment";
    EXPECT_EQ(largest_run(q, 0, 64), 64u) << "all streamed: a segment";
    EXPECT_EQ(largest_run(q, 2500, 64), 1500u) << "the resident part of the second query";
    EXPECT_EQ(largest_run(q, 500, 800), 800u) << "a segment larger than any resident part";
    EXPECT_EQ(largest_run({}, 0, 64), 0u);
}

// Points split between the device and host memory: the G1 context's first points resident (l, a, b_g1, then
// h's), as many as fit beside the segment buffers, B_G2's resident points, the scratch kept and the kernels'
// needs for the largest run; B_G2 resident only where its segments would take as much; nothing resident where not
// even the segments fit beside B_G2.
TEST(PointsSplit, MostG1PointsThatFitAreResident) {
    // The 32 GiB PoRep set: l, a, b_g1, h; 33.1 M G2 points. Beside: 16 GiB of NTT + 1 + 96 bytes a run point.
    const std::vector<size_t> g1 = {130169893, 129753948, 33112282, (size_t(1) << 27) - 1};
    const size_t n_g2 = 33112282;
    auto beside = [](size_t g1_run, size_t g2_run) { return 17 * GiB + g1_run * 96 + g2_run * 96; };
    const stream_segments seg{size_t(1) << 25, size_t(1) << 24, true};
    auto used = [&](const points_split& s, size_t keep) {
        return s.g1_resident * 96 + 2 * seg.g1 * 96 + n_g2 * 192 + keep +
               beside(largest_run(g1, s.g1_resident, seg.g1), n_g2);
    };
    auto s = choose_points_split(g1, n_g2, seg, 96, 192, 68 * GiB, 0, beside);
    EXPECT_TRUE(s.fits);
    EXPECT_TRUE(s.g2_resident) << "33.1 M G2 points take less than two segments of 2^24";
    EXPECT_GT(s.g1_resident, g1[0]) << "l and more resident";
    EXPECT_LT(s.g1_resident, g1[0] + g1[1] + g1[2] + g1[3]);
    EXPECT_LE(used(s, 0), 68 * GiB);
    // One point more would not fit.
    points_split more = s;
    ++more.g1_resident;
    EXPECT_GT(used(more, 0), 68 * GiB);
    // Scratch kept: fewer points resident, by about its size.
    const auto kept = choose_points_split(g1, n_g2, seg, 96, 192, 68 * GiB, 4 * GiB, beside);
    EXPECT_LT(kept.g1_resident, s.g1_resident);
    EXPECT_LE(used(kept, 4 * GiB), 68 * GiB);
    // Room for everything: every G1 point resident (no segment buffers needed then).
    const auto all = choose_points_split(g1, n_g2, seg, 96, 192, 200 * GiB, 0, beside);
    EXPECT_EQ(all.g1_resident, g1[0] + g1[1] + g1[2] + g1[3]);
    // A G2 query larger than its two segments streams.
    const auto g2_streamed = choose_points_split(g1, 3 * (size_t(1) << 24), seg, 96, 192, 68 * GiB, 0, beside);
    EXPECT_FALSE(g2_streamed.g2_resident);
    // Not even the segments beside B_G2 and the kernels: all streamed, the segments' verdict kept.
    const auto none = choose_points_split(g1, n_g2, seg, 96, 192, 20 * GiB, 0, beside);
    EXPECT_EQ(none.g1_resident, 0u);
    EXPECT_FALSE(none.g2_resident);
    EXPECT_TRUE(none.fits);
}
