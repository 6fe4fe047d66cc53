// Process and host resource figures: printed beside timings (peak memory is a target of the design), and read
// before a large allocation that the kernel would otherwise answer by killing the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cuzk {

// Peak resident set size of this process so far, in MiB (getrusage ru_maxrss).
double peak_rss_mib();

// MemAvailable of a /proc/meminfo text, in bytes; nullopt where the line is missing or malformed.
std::optional<uint64_t> parse_mem_available(std::string_view meminfo);

// The host's memory available to new allocations without swapping (MemAvailable of /proc/meminfo), in bytes;
// nullopt where it cannot be read. On Linux an allocation larger than this still succeeds (overcommit) and the
// process is killed once it touches the pages: ask this first.
std::optional<uint64_t> host_memory_available_bytes();

}  // namespace cuzk
