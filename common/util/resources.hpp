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

// What a large allocation must leave of the host's available memory: room for the rest of the process and the
// other daemons.
inline constexpr uint64_t HOST_MEMORY_RESERVE = uint64_t(2) << 30;

// Whether |bytes| more may be allocated (and written) where the host has |available| bytes available
// (host_memory_available_bytes), leaving HOST_MEMORY_RESERVE; where |available| is unknown, yes. Past that the
// kernel kills the process as it writes the pages (seen: gpud on a 128 GiB H100 machine, making a 47 GiB host
// copy of the 32 GiB PoRep points beside the 51 GB parameters and a 30 GiB ring) instead of the allocation
// failing.
bool host_memory_fits(uint64_t bytes, std::optional<uint64_t> available);

}  // namespace cuzk
