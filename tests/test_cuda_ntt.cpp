// GPU NTT and H pipeline (gpud/cuda/ntt.hpp) against common/ntt on the same random inputs, at sizes
// on both sides of the 1024-element tile. Skipped with a message where no GPU is present.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/ntt/ntt.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/ntt.hpp"

using namespace cuzk;
using cuzk::ff::fr_t;

namespace {

class CudaNtt : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        if (cuda::device_count(&why) == 0) GTEST_SKIP() << "no GPU present (" << why << "): CUDA tests skipped";
    }
};

std::vector<fr_t> random_vector(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<fr_t> v(n);
    for (auto& x : v) x = fr_t::random(rng);
    return v;
}

}  // namespace

TEST_F(CudaNtt, TransformsMatchCpu) {
    cuda::ntt_context gpu;
    uint64_t seed = 1;
    for (unsigned L : {1u, 2u, 5u, 7u, 8u, 9u, 10u, 11u, 13u, 16u, 20u, 21u}) {
        ntt::domain d(L);
        for (auto kind : {cuda::ntt_kind::forward, cuda::ntt_kind::inverse, cuda::ntt_kind::coset_forward,
                          cuda::ntt_kind::coset_inverse}) {
            auto x = random_vector(d.size(), ++seed);
            auto want = x;
            switch (kind) {
                case cuda::ntt_kind::forward: ntt::forward(d, want); break;
                case cuda::ntt_kind::inverse: ntt::inverse(d, want); break;
                case cuda::ntt_kind::coset_forward: ntt::coset_forward(d, want); break;
                case cuda::ntt_kind::coset_inverse: ntt::coset_inverse(d, want); break;
            }
            gpu.transform(x, kind);
            ASSERT_TRUE(x == want) << "log n=" << L << " kind=" << int(kind);
        }
    }
}

// Every width of the strided passes (ntt_context::set_pass_columns) and every number of stages per register
// group (set_register_stages) gives the same transforms.
TEST_F(CudaNtt, PassColumnWidthsKeepTheResult) {
    uint64_t seed = 900;
    for (unsigned cols : {0u, 1u, 3u, 4u, 5u, 8u}) {
        for (unsigned stages : {1u, 2u, 3u}) {
            if (stages != 3 && cols != 1 && cols != 4) continue;
            cuda::ntt_context gpu;
            gpu.set_pass_columns(cols);
            gpu.set_register_stages(stages);
            for (unsigned L : {1u, 2u, 3u, 5u, 10u, 11u, 14u, 17u, 20u}) {
                ntt::domain d(L);
                for (auto kind : {cuda::ntt_kind::forward, cuda::ntt_kind::coset_inverse}) {
                    auto x = random_vector(d.size(), ++seed);
                    auto want = x;
                    if (kind == cuda::ntt_kind::forward) ntt::forward(d, want);
                    else ntt::coset_inverse(d, want);
                    gpu.transform(x, kind);
                    ASSERT_TRUE(x == want) << "columns 2^" << cols << ", stages " << stages << ", log n=" << L
                                           << " kind=" << int(kind);
                }
            }
            auto a = random_vector(size_t(1) << 12, ++seed), b = random_vector(size_t(1) << 12, ++seed),
                 c = random_vector(size_t(1) << 12, ++seed);
            auto ga = a;
            gpu.compute_h(ga, b, c);
            ntt::compute_h(ntt::domain(12), a, b, c);
            ASSERT_TRUE(ga == a) << "columns 2^" << cols << ", stages " << stages;
        }
    }
    cuda::ntt_context gpu;
    EXPECT_THROW(gpu.set_pass_columns(9), std::invalid_argument);
    EXPECT_THROW(gpu.set_register_stages(0), std::invalid_argument);
    EXPECT_THROW(gpu.set_register_stages(4), std::invalid_argument);
}

// The bit reversal element by element (set_tiled_reversal(false)) gives what the tiled one does, with every
// scaling fused into it: the inverse's 1/n, the coset inverse's g^-p / n, and H's subtraction of C.
TEST_F(CudaNtt, PairwiseReversalMatchesCpuToo) {
    cuda::ntt_context gpu;
    gpu.set_tiled_reversal(false);
    uint64_t seed = 700;
    for (unsigned L : {8u, 9u, 12u}) {
        ntt::domain d(L);
        for (auto kind : {cuda::ntt_kind::forward, cuda::ntt_kind::inverse, cuda::ntt_kind::coset_inverse}) {
            auto x = random_vector(d.size(), ++seed);
            auto want = x;
            if (kind == cuda::ntt_kind::forward) ntt::forward(d, want);
            else if (kind == cuda::ntt_kind::inverse) ntt::inverse(d, want);
            else ntt::coset_inverse(d, want);
            gpu.transform(x, kind);
            ASSERT_TRUE(x == want) << "log n=" << L << " kind=" << int(kind);
        }
        auto a = random_vector(d.size(), ++seed), b = random_vector(d.size(), ++seed),
             c = random_vector(d.size(), ++seed);
        auto ga = a;
        gpu.compute_h(ga, b, c);
        ntt::compute_h(d, a, b, c);
        ASSERT_TRUE(ga == a) << "H, log n=" << L;
    }
}

TEST_F(CudaNtt, ForwardThenInverseIsIdentityAt2p22) {
    cuda::ntt_context gpu;
    auto x = random_vector(size_t(1) << 22, 77);
    auto y = x;
    gpu.transform(y, cuda::ntt_kind::coset_forward);
    EXPECT_FALSE(y == x);
    gpu.transform(y, cuda::ntt_kind::coset_inverse);
    EXPECT_TRUE(y == x);
}

TEST_F(CudaNtt, LoadPaddedFillsTheRestWithZero) {
    cuda::ntt_context gpu;
    auto x = random_vector(5, 31);
    std::vector<fr_t> back(8, fr_t::one());
    gpu.fill_random(1, 3, 7);  // the slot held other values before
    gpu.load_padded(1, x, 3);
    gpu.store(1, back);
    for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], i < x.size() ? x[i] : fr_t::zero()) << i;
    EXPECT_THROW(gpu.load_padded(1, random_vector(9, 32), 3), std::invalid_argument);
}

TEST_F(CudaNtt, ComputeHMatchesCpu) {
    cuda::ntt_context gpu;
    uint64_t seed = 500;
    for (unsigned L : {0u, 1u, 2u, 3u, 4u, 8u, 9u, 10u, 11u, 12u, 18u, 19u, 20u}) {
        ntt::domain d(L);
        auto a = random_vector(d.size(), ++seed), b = random_vector(d.size(), ++seed),
             c = random_vector(d.size(), ++seed);
        auto ga = a;
        gpu.compute_h(ga, b, c);
        ntt::compute_h(d, a, b, c);
        ASSERT_TRUE(ga == a) << "log n=" << L;
    }
}

TEST_F(CudaNtt, RejectsBadSizes) {
    cuda::ntt_context gpu;
    std::vector<fr_t> x(12);
    EXPECT_THROW(gpu.transform(x, cuda::ntt_kind::forward), std::invalid_argument);
}

// load_padded_async (the backend's rows and staged scalars): the kernels after a copy wait for it, a copy
// after kernels waits for them, and compute_h fed by copies still in flight gives the CPU's H.
TEST_F(CudaNtt, AsyncLoadsAreOrderedWithTheKernels) {
    cuda::ntt_context gpu;
    const unsigned L = 20;
    ntt::domain d(L);
    const size_t n = d.size();
    // Kernels after a copy: the transform reads what the copy wrote (rows shorter than the slot: zeros).
    auto x = random_vector(n - 3, 41);
    gpu.load_padded_async(0, x, L);
    gpu.transform_resident(0, L, cuda::ntt_kind::forward);
    std::vector<fr_t> want(x.begin(), x.end());
    want.resize(n, fr_t::zero());
    ntt::forward(d, want);
    std::vector<fr_t> back(n);
    gpu.store(0, back);
    ASSERT_TRUE(back == want) << "the transform did not wait for the copy";
    // A copy after kernels: it lands after the transform's writes, not under them.
    for (int rep = 0; rep < 3; ++rep) {
        auto y = random_vector(n, 42 + rep);
        gpu.transform_resident(0, L, cuda::ntt_kind::coset_forward);
        gpu.load_padded_async(0, y, L);
        gpu.store(0, back);
        ASSERT_TRUE(back == y) << "the copy overlapped the transform before it (rep " << rep << ")";
    }
    // device_data waits for the slot's copy.
    auto z = random_vector(n, 45);
    gpu.load_padded_async(2, z, L);
    std::vector<fr_t> via(n);
    ASSERT_EQ(cudaMemcpy(via.data(), gpu.device_data(2), n * sizeof(fr_t), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_TRUE(via == z);
    // compute_h on three copies in flight, then a copy into a slot its kernels read issued right after.
    auto a = random_vector(n, 46), b = random_vector(n - 100, 47), c = random_vector(n, 48);
    gpu.load_padded_async(0, a, L);
    gpu.load_padded_async(1, b, L);
    gpu.load_padded_async(2, c, L);
    gpu.compute_h_resident(L);
    auto next = random_vector(n, 49);
    gpu.load_padded_async(1, next, L);
    std::vector<fr_t> h(n);
    gpu.store(0, h);
    b.resize(n, fr_t::zero());
    ntt::compute_h(d, a, b, c);
    ASSERT_TRUE(h == a);
    gpu.store(1, back);
    ASSERT_TRUE(back == next);
    EXPECT_THROW(gpu.load_padded_async(1, random_vector(9, 50), 3), std::invalid_argument);
}
