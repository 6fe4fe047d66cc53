// cuda::pinned_pool (gpud/cuda/pinned_pool.hpp): the reuse of page-locked buffers for the A/B scalar vectors.
// The bookkeeping runs everywhere with a stand-in for the driver (plain heap, counted); the real page-locking
// is checked where a GPU is present.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <memory_resource>
#include <vector>

#include "gpud/cuda/pinned_pool.hpp"

using cuzk::cuda::pinned_pool;

namespace {

// The stand-in driver: counts what is locked and given back, refuses while |refuse| is set.
int locks = 0, unlocks = 0;
bool refuse = false;
void* fake_lock(int, size_t bytes) {
    if (refuse) return nullptr;
    ++locks;
    return std::aligned_alloc(4096, bytes);
}
void fake_unlock(void* p) {
    ++unlocks;
    std::free(p);
}
pinned_pool::allocator fake() { return {fake_lock, fake_unlock}; }

struct PinnedPool : ::testing::Test {
    void SetUp() override { locks = unlocks = 0, refuse = false; }
};

}  // namespace

TEST_F(PinnedPool, ReusesABufferForTheSameSizeInsteadOfLockingAgain) {
    pinned_pool pool(0, 1000, size_t(1) << 30, fake());
    const void* first = nullptr;
    for (int partition = 0; partition < 5; ++partition) {
        std::pmr::vector<uint64_t> v(&pool);
        v.reserve(100000);
        v.assign(100000, uint64_t(partition));
        if (partition == 0) first = v.data();
        EXPECT_EQ(v.data(), first) << "partition " << partition;
        EXPECT_TRUE(pool.contains(v.data(), v.size() * sizeof v[0]));
        EXPECT_TRUE(pool.contains(v.data() + 10, 80));
        EXPECT_FALSE(pool.contains(v.data(), v.capacity() * sizeof v[0] + 4096 * 2));
    }
    EXPECT_EQ(locks, 1);
    const auto st = pool.snapshot();
    EXPECT_EQ(st.locked_new, 1u);
    EXPECT_EQ(st.reused, 4u);
    EXPECT_EQ(st.cached_bytes, st.locked_bytes) << "all returned";
    EXPECT_FALSE(pool.contains(first, 8)) << "a cached buffer is not handed out";
}

TEST_F(PinnedPool, SmallRequestsGoToTheHeapAndTwoLiveVectorsGetTwoBuffers) {
    pinned_pool pool(0, 1000, size_t(1) << 30, fake());
    std::pmr::vector<uint64_t> small(&pool);
    small.reserve(10);  // 80 bytes: below the minimum
    EXPECT_FALSE(pool.contains(small.data(), 80));
    std::pmr::vector<uint64_t> a(&pool), b(&pool);
    a.reserve(1000);
    b.reserve(1000);
    EXPECT_NE(a.data(), b.data());
    EXPECT_TRUE(pool.contains(a.data(), 8000));
    EXPECT_TRUE(pool.contains(b.data(), 8000));
    EXPECT_EQ(locks, 2);
    // The smallest cached buffer that holds a request is taken.
    std::pmr::vector<uint64_t> big(&pool);
    big.reserve(100000);
    const void* big_at = big.data();
    big = std::pmr::vector<uint64_t>(&pool);  // returned (same resource: its buffer goes back to the pool)
    a = std::pmr::vector<uint64_t>(&pool);
    std::pmr::vector<uint64_t> again(&pool);
    again.reserve(900);
    EXPECT_NE(again.data(), big_at) << "the 8 KB buffer fits; the 800 KB one is not wasted on it";
    EXPECT_EQ(locks, 3);
}

TEST_F(PinnedPool, RefusedRequestsAreServedFromTheHeapAndNotCached) {
    pinned_pool pool(0, 1000, size_t(1) << 30, fake());
    refuse = true;
    {
        std::pmr::vector<uint64_t> v(&pool);
        v.assign(5000, 7);  // still a working vector
        EXPECT_EQ(v[4999], 7u);
        EXPECT_FALSE(pool.contains(v.data(), 8)) << "not page-locked: copies must not count on it";
    }
    auto st = pool.snapshot();
    EXPECT_EQ(st.refused, 1u);
    EXPECT_EQ(st.locked_bytes, 0u);
    EXPECT_EQ(st.cached_bytes, 0u);
    refuse = false;  // the driver may accept later: tried again, not remembered as refused
    std::pmr::vector<uint64_t> v(&pool);
    v.reserve(5000);
    EXPECT_TRUE(pool.contains(v.data(), 8));
    EXPECT_EQ(locks, 1);
}

TEST_F(PinnedPool, FreeBuffersBeyondTheCapAreGivenBackOldestFirst) {
    const size_t kb64 = 64 * 1024;
    pinned_pool pool(0, 1000, 2 * kb64, fake());  // room for two free 64 KB buffers
    {
        std::pmr::vector<char> a(&pool), b(&pool), c(&pool);
        a.reserve(kb64);
        b.reserve(kb64);
        c.reserve(kb64);
        EXPECT_EQ(locks, 3);
    }  // c, b, a returned: the third free buffer is over the cap
    auto st = pool.snapshot();
    EXPECT_EQ(unlocks, 1);
    EXPECT_EQ(st.given_back, 1u);
    EXPECT_EQ(st.cached_bytes, 2 * kb64);
    EXPECT_EQ(st.locked_bytes, 2 * kb64);
}

TEST_F(PinnedPool, DestructionGivesBackTheCachedBuffers) {
    {
        pinned_pool pool(0, 1000, size_t(1) << 30, fake());
        std::pmr::vector<uint64_t> v(&pool);
        v.reserve(4096);
        std::pmr::vector<uint64_t> w(&pool);
        w.reserve(8192);
    }
    EXPECT_EQ(locks, 2);
    EXPECT_EQ(unlocks, 2);
}

// With the driver: the buffers are page-locked host memory (cudaMemoryTypeHost) and copy to the device.
TEST(PinnedPoolOnGpu, BuffersArePageLockedAndCopyToTheDevice) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        (void)cudaGetLastError();
        GTEST_SKIP() << "no CUDA GPU here: the driver-backed pool is checked where one is present";
    }
    pinned_pool pool(0, 4096, size_t(1) << 30);
    std::pmr::vector<uint32_t> v(&pool);
    v.resize(1 << 20);
    for (size_t i = 0; i < v.size(); ++i) v[i] = uint32_t(i * 2654435761u);
    ASSERT_TRUE(pool.contains(v.data(), v.size() * 4)) << "the driver refused: " << pool.snapshot().refused;
    cudaPointerAttributes a{};
    ASSERT_EQ(cudaPointerGetAttributes(&a, v.data()), cudaSuccess);
    EXPECT_EQ(a.type, cudaMemoryTypeHost);
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, v.size() * 4), cudaSuccess);
    std::vector<uint32_t> back(v.size());
    EXPECT_EQ(cudaMemcpy(d, v.data(), v.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(back.data(), d, v.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_TRUE(std::equal(back.begin(), back.end(), v.begin()));
    EXPECT_EQ(cudaFree(d), cudaSuccess);
}
