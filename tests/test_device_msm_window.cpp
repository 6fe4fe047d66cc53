// The GPU MSM's window model (gpud/cuda/msm_window.hpp) on the host: the widths it picks for the shapes
// measured on an H200 (docs/benchmarks-history.md), and the properties msm.cu relies on.
#include <gtest/gtest.h>

#include <cstddef>

#include "gpud/cuda/msm_window.hpp"

namespace cuda = cuzk::cuda;

namespace {
constexpr size_t pow2(unsigned l) { return size_t(1) << l; }
}  // namespace

// c (W - 1) >= 256 - c for every width: the signed top digit stays within 2^(c-1) (msm_digits.cuh).
TEST(MsmWindow, WindowsCoverTheScalarWithTheTopDigitBounded) {
    for (unsigned c = 2; c <= cuda::MAX_MULTIPLES_WINDOW; ++c) {
        const unsigned w = cuda::windows_for(c);
        EXPECT_GE(c * (w - 1), 256 - c) << "c=" << c;
        EXPECT_LT(c * (w - 1), 256u) << "c=" << c << ": one window more than needed";
    }
}

// The batch-affine rule: long runs per bucket and enough pairs.
TEST(MsmWindow, BatchAffineWhereRunsAreLong) {
    EXPECT_TRUE(cuda::affine_runs_pay(12 * pow2(27), 12 * pow2(21)));   // the H MSM at c = 22: 64 per bucket
    EXPECT_FALSE(cuda::affine_runs_pay(13 * pow2(24), 13 * pow2(19)));  // 2^24 at c = 20: 32 per bucket
    EXPECT_FALSE(cuda::affine_runs_pay(pow2(24), pow2(10)));            // long runs, too few pairs
}

// A pair's price: a mixed addition outside the batch-affine rounds, falling with the run inside them,
// never rising, and continuous where the log-linear part meets the floor.
TEST(MsmWindow, PairCostFallsWithTheRun) {
    const size_t many = pow2(30);
    EXPECT_EQ(cuda::pair_cost(false, many, many / 1000), 1.0);       // G2: the same price at every run
    EXPECT_EQ(cuda::pair_cost(true, pow2(20), pow2(20) / 1000), 1.0);  // too few pairs for the rounds
    EXPECT_EQ(cuda::pair_cost(true, many, many / 40), 1.0);          // below AFFINE_RUN
    double prev = 1.0;
    for (size_t buckets = many / cuda::AFFINE_RUN; buckets > many / 512; buckets -= buckets / 256) {
        const double a = cuda::pair_cost(true, many, buckets);
        EXPECT_LE(a, prev) << "run " << double(many) / double(buckets);
        EXPECT_GE(a, 0.81) << "run " << double(many) / double(buckets);
        prev = a;
    }
    EXPECT_NEAR(cuda::pair_cost(true, many, many / 64 + 1), cuda::pair_cost(true, many, many / 64), 1e-4);
}

// The widths measured: the H MSM keeps 22 (638 ms against 646 at 20); the partition's L and A (13.0M random
// scalars) take 18 and B_G1 (4.4M) 16 with the batch-affine rounds; plain 2^24 random 19, 2^26 random 20.
TEST(MsmWindow, G1WidthsOfThePartitionAndTheTargets) {
    EXPECT_EQ(cuda::choose_window(true, pow2(27) - 1), 22u);
    EXPECT_EQ(cuda::choose_window(true, 130169893 / 10), 18u);
    EXPECT_EQ(cuda::choose_window(true, 4400000), 16u);
    EXPECT_EQ(cuda::choose_window(true, pow2(24)), 19u);
    EXPECT_EQ(cuda::choose_window(true, pow2(26)), 20u);
    EXPECT_EQ(cuda::choose_window(true, pow2(20)), 16u);
    EXPECT_EQ(cuda::choose_window(true, pow2(22)), 16u);
}

// Where the rounds cannot run (few pairs) and for G2, the model is the mixed-addition count alone.
TEST(MsmWindow, SmallMsmsAndG2KeepThePlainCount) {
    for (unsigned l = 4; l <= 21; ++l) {
        EXPECT_EQ(cuda::choose_window(true, pow2(l)), cuda::choose_window(false, pow2(l))) << "2^" << l;
    }
    EXPECT_EQ(cuda::choose_window(false, pow2(20)), 16u);
    EXPECT_EQ(cuda::choose_window(false, pow2(24)), 20u);
    for (unsigned l = 7; l <= 27; ++l) EXPECT_LE(cuda::choose_window(true, pow2(l)), cuda::MAX_PLAIN_WINDOW);
}

// The multiples' widths behind the 2^24 and 2^26 targets, and that the run through them is preferred there.
TEST(MsmWindow, MultiplesWidthsAndChoice) {
    EXPECT_EQ(cuda::choose_multiples_window(pow2(22)), 20u);
    EXPECT_EQ(cuda::choose_multiples_window(pow2(24)), 22u);
    EXPECT_EQ(cuda::choose_multiples_window(pow2(26)), 24u);
    for (unsigned l : {22u, 24u, 26u}) {
        const size_t m = pow2(l);
        const unsigned pc = cuda::choose_multiples_window(m);
        EXPECT_LT(cuda::multiples_cost(true, m, pc), cuda::plain_cost(true, m, cuda::choose_window(true, m)))
            << "2^" << l;
    }
}
