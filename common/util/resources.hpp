// Process resource figures printed beside timings (peak memory is a target of the design).
#pragma once

#include <cstddef>

namespace cuzk {

// Peak resident set size of this process so far, in MiB (getrusage ru_maxrss).
double peak_rss_mib();

}  // namespace cuzk
