// Host memory as the daemons read it before a large allocation (common/util/resources.hpp): MemAvailable of
// /proc/meminfo, in bytes, and whether an allocation leaves the reserve.
#include <gtest/gtest.h>

#include "common/util/resources.hpp"

using namespace cuzk;

TEST(HostMemory, MemAvailableIsReadInBytes) {
    const char* meminfo =
        "MemTotal:       131961972 kB\n"
        "MemFree:         1234567 kB\n"
        "MemAvailable:   39705040 kB\n"
        "Buffers:           12345 kB\n";
    EXPECT_EQ(parse_mem_available(meminfo), uint64_t(39705040) * 1024);
}

TEST(HostMemory, AMissingOrMalformedLineIsUnknown) {
    EXPECT_EQ(parse_mem_available("MemTotal: 100 kB\nMemFree: 50 kB\n"), std::nullopt);
    EXPECT_EQ(parse_mem_available("MemAvailable: lots kB\n"), std::nullopt);
    EXPECT_EQ(parse_mem_available("MemAvailable: 100 MB\n"), std::nullopt);
    EXPECT_EQ(parse_mem_available(""), std::nullopt);
    EXPECT_EQ(parse_mem_available("MemAvailable:   7 kB"), uint64_t(7) * 1024);  // no final newline
}

TEST(HostMemory, ThisHostReportsSome) {
    const auto available = host_memory_available_bytes();
    ASSERT_TRUE(available.has_value()) << "/proc/meminfo has no MemAvailable line here";
    EXPECT_GT(*available, 0u);
}

// A large allocation is made only where it leaves HOST_MEMORY_RESERVE of the host's available memory, and tried
// where that is unknown. The case measured: 47 GiB of packed points, 39.7 GB available (an H100 machine of
// 128 GiB with a 30 GiB ring and the 51 GB PoRep parameters), where gpud was killed for want of memory.
TEST(HostMemory, ALargeAllocationIsMadeOnlyWhereItLeavesTheReserve) {
    constexpr uint64_t GiB = uint64_t(1) << 30;
    EXPECT_FALSE(host_memory_fits(47 * GiB, uint64_t(39'705'040) * 1024));
    EXPECT_TRUE(host_memory_fits(47 * GiB, 60 * GiB));
    EXPECT_TRUE(host_memory_fits(47 * GiB, 47 * GiB + HOST_MEMORY_RESERVE));
    EXPECT_FALSE(host_memory_fits(47 * GiB, 47 * GiB + HOST_MEMORY_RESERVE - 1));
    EXPECT_FALSE(host_memory_fits(47 * GiB, GiB));  // less available than asked: no wrap-around
    EXPECT_TRUE(host_memory_fits(47 * GiB, std::nullopt));
}
