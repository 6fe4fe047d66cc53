// util::released_pages: the physical pages of a large buffer go back to the kernel (mincore finds them gone),
// a read of them faults rather than finding zeros, and once restored the buffer is usable and freed normally.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/util/released_pages.hpp"

using cuzk::util::released_pages;

namespace {

constexpr std::size_t mib = std::size_t(1) << 20;

// Pages of [data, data + bytes) (whole pages inside it) resident in memory now.
std::size_t resident_pages(const void* data, std::size_t bytes) {
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto at = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t begin = (at + page - 1) & ~(page - 1), end = (at + bytes) & ~(page - 1);
    std::vector<unsigned char> in((end - begin) / page);
    if (::mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) != 0) return SIZE_MAX;
    std::size_t n = 0;
    for (unsigned char c : in) n += c & 1;
    return n;
}

std::vector<std::uint64_t> filled(std::size_t bytes) {
    std::vector<std::uint64_t> v(bytes / sizeof(std::uint64_t));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = i * 0x9e3779b97f4a7c15ull + 1;
    return v;
}

}  // namespace

TEST(ReleasedPages, GivesThePagesBackAndKeepsSizeAndAddress) {
    auto v = filled(64 * mib);
    const std::size_t bytes = v.size() * sizeof(v[0]);
    ASSERT_GT(resident_pages(v.data(), bytes), 0u);
    const auto* data = v.data();
    const std::size_t size = v.size();
    released_pages r(v.data(), bytes);
    EXPECT_TRUE(r.error().empty()) << r.error();
    // All but the partial pages at the two ends.
    const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    EXPECT_GE(r.bytes(), bytes - 2 * page);
    EXPECT_LE(r.bytes(), bytes);
    EXPECT_EQ(resident_pages(v.data(), bytes), 0u);
    EXPECT_EQ(v.data(), data);
    EXPECT_EQ(v.size(), size);
}

TEST(ReleasedPagesDeathTest, AReadOfReleasedPagesFaultsRatherThanReadingZeros) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    auto v = filled(8 * mib);
    released_pages r(v.data(), v.size() * sizeof(v[0]));
    ASSERT_GT(r.bytes(), 0u);
    volatile const std::uint64_t* middle = v.data() + v.size() / 2;
    EXPECT_DEATH((void)*middle, "");
}

TEST(ReleasedPages, RestoredOnDestructionZeroFilledAndWritable) {
    auto v = filled(8 * mib);
    {
        released_pages r(v.data(), v.size() * sizeof(v[0]));
        ASSERT_GT(r.bytes(), 0u);
    }
    // The ends (partial pages) keep their values; the middle reads zero and takes writes.
    EXPECT_EQ(v.front(), 1u);
    EXPECT_EQ(v[v.size() / 2], 0u);
    v[v.size() / 2] = 7;
    EXPECT_EQ(v[v.size() / 2], 7u);
    v.clear();
    v.shrink_to_fit();  // freed through the allocator with the protection lifted
}

TEST(ReleasedPages, SmallOrNullRangesAreLeftAlone) {
    auto v = filled(256 * 1024);
    released_pages small(v.data(), v.size() * sizeof(v[0]));  // under the 1 MiB floor
    EXPECT_EQ(small.bytes(), 0u);
    EXPECT_TRUE(small.error().empty());
    EXPECT_EQ(v[v.size() / 2], (v.size() / 2) * 0x9e3779b97f4a7c15ull + 1);
    released_pages none(nullptr, 1 << 30);
    EXPECT_EQ(none.bytes(), 0u);
}

TEST(ReleasedPages, MovedOwnershipRestoresOnce) {
    auto v = filled(8 * mib);
    released_pages a(v.data(), v.size() * sizeof(v[0]));
    const std::size_t bytes = a.bytes();
    ASSERT_GT(bytes, 0u);
    released_pages b(std::move(a));
    EXPECT_EQ(a.bytes(), 0u);
    EXPECT_EQ(b.bytes(), bytes);
    released_pages c;
    c = std::move(b);
    EXPECT_EQ(c.bytes(), bytes);
    c = released_pages();  // restored here
    v[v.size() / 2] = 3;
    EXPECT_EQ(v[v.size() / 2], 3u);
}
