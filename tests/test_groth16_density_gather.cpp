// gather_dense (the A and B scalars of prepare, gathered in parallel) against the obvious serial loop: random,
// empty, full and sparse bitmaps, sizes across the 64-bit words and the parallel blocks' edges; and the checks
// that refuse a bitmap that does not fit its vector. Also scalar_buffer, the storage it fills.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory_resource>
#include <random>
#include <stdexcept>
#include <vector>

#include "common/groth16/density_gather.hpp"
#include "common/groth16/scalar_buffer.hpp"

using namespace cuzk;
using namespace cuzk::groth16;

namespace {

std::vector<ff::fr_t> numbered(size_t n) {
    std::vector<ff::fr_t> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = ff::fr_t::from_u64(i + 1);
    return x;
}

std::vector<ff::fr_t> serial_gather(const std::vector<ff::fr_t>& x, const density_view& d) {
    std::vector<ff::fr_t> out;
    for (size_t i = 0; i < x.size(); ++i)
        if (d.test(i)) out.push_back(x[i]);
    return out;
}

// |n| bits, each set with probability |p| (0 and 1 exactly: none, all).
std::vector<uint64_t> bitmap(size_t n, double p, uint64_t seed) {
    std::vector<uint64_t> w((n + 63) / 64, 0);
    std::mt19937_64 g(seed);
    std::bernoulli_distribution bit(p);
    for (size_t i = 0; i < n; ++i)
        if (p >= 1 || (p > 0 && bit(g))) w[i / 64] |= uint64_t(1) << (i % 64);
    return w;
}

TEST(DensityGather, EqualsTheSerialGatherAcrossSizesAndDensities) {
    // Word edges (63, 64, 65), the parallel block of 65,536 elements and its edges, several blocks.
    for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000), size_t(65535),
                     size_t(65536), size_t(65537), size_t(300001)}) {
        const auto x = numbered(n);
        for (double p : {0.0, 0.01, 0.45, 0.99, 1.0}) {
            const auto words = bitmap(n, p, n * 31 + size_t(p * 100));
            const density_view d{words, n};
            const auto want = serial_gather(x, d);
            ASSERT_EQ(d.count(), want.size());
            scalar_buffer out;
            out.resize_for_overwrite(want.size());
            EXPECT_EQ(gather_dense(x, d, out.data()), want.size()) << "n " << n << " p " << p;
            EXPECT_TRUE(std::equal(want.begin(), want.end(), out.begin(), out.end())) << "n " << n << " p " << p;
        }
    }
}

TEST(DensityGather, RefusesABitmapThatDoesNotFitItsVector) {
    const auto x = numbered(100);
    std::vector<uint64_t> words = bitmap(100, 0.5, 1);
    scalar_buffer out;
    out.resize_for_overwrite(100);
    EXPECT_THROW(gather_dense(x, density_view{words, 99}, out.data()), std::invalid_argument) << "bit count";
    std::vector<uint64_t> one_word(words.begin(), words.begin() + 1);
    EXPECT_THROW(gather_dense(x, density_view{one_word, 100}, out.data()), std::invalid_argument) << "short bitmap";
    auto stray = words;
    stray[1] |= uint64_t(1) << 40;  // bit 104, beyond the 100 variables
    EXPECT_THROW(gather_dense(x, density_view{stray, 100}, out.data()), std::invalid_argument) << "stray bit";
    auto longer = words;
    longer.push_back(1);  // a word past the end with a bit set
    EXPECT_THROW(gather_dense(x, density_view{longer, 100}, out.data()), std::invalid_argument) << "stray word";
    try {
        check_density(density_view{stray, 100}, 100, "witness B aux");
        FAIL() << "no throw";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("witness B aux"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("beyond its 100 variables"), std::string::npos) << e.what();
    }
    longer.back() = 0;  // zero words past the end are fine
    EXPECT_EQ(gather_dense(x, density_view{longer, 100}, out.data()), density_view(words, 100).count());
}

// Counts what a resource hands out and takes back.
class counting_resource final : public std::pmr::memory_resource {
public:
    size_t live = 0, allocations = 0;

private:
    void* do_allocate(size_t bytes, size_t align) override {
        ++allocations;
        live += bytes;
        return std::pmr::get_default_resource()->allocate(bytes, align);
    }
    void do_deallocate(void* p, size_t bytes, size_t align) override {
        live -= bytes;
        std::pmr::get_default_resource()->deallocate(p, bytes, align);
    }
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
};

TEST(ScalarBuffer, KeepsItsMemoryWhileItFitsAndGivesItBackToItsResource) {
    counting_resource r;
    {
        scalar_buffer b(&r);
        EXPECT_TRUE(b.empty());
        b.resize_for_overwrite(100);
        EXPECT_EQ(b.size(), 100u);
        EXPECT_EQ(r.live, 100 * sizeof(ff::fr_t));
        const ff::fr_t* at = b.data();
        b.resize_for_overwrite(50);  // fits: same memory
        EXPECT_EQ(b.data(), at);
        EXPECT_EQ(r.allocations, 1u);
        b.resize_for_overwrite(200);  // does not: replaced, the old memory given back
        EXPECT_EQ(r.allocations, 2u);
        EXPECT_EQ(r.live, 200 * sizeof(ff::fr_t));
        scalar_buffer moved(std::move(b));
        EXPECT_TRUE(b.empty());
        EXPECT_EQ(moved.size(), 200u);
        EXPECT_EQ(moved.memory(), &r);
        std::span<const ff::fr_t> s = moved;
        EXPECT_EQ(s.size(), 200u);
        moved.release();
        EXPECT_EQ(r.live, 0u);
        EXPECT_TRUE(moved.empty());
        moved.resize_for_overwrite(10);
    }
    EXPECT_EQ(r.live, 0u) << "the destructor gives the memory back";
    scalar_buffer leaked(&r);
    leaked.resize_for_overwrite(10);
    ff::fr_t* kept = leaked.data();
    leaked.leak();
    EXPECT_TRUE(leaked.empty());
    EXPECT_EQ(r.live, 10 * sizeof(ff::fr_t)) << "leak() forgets the memory without giving it back";
    r.deallocate(kept, 10 * sizeof(ff::fr_t), alignof(ff::fr_t));  // the test's own cleanup
}

}  // namespace
