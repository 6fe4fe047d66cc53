// Host memory as gpud reads it before the parameters' host copy (common/util/resources.hpp): MemAvailable of
// /proc/meminfo, in bytes.
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
