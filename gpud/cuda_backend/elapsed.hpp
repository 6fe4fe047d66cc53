// Time since a steady_clock point, for the CUDA backend's logs (seconds) and its pinning counters (ns).
#pragma once

#include <chrono>
#include <cstdint>

namespace cuzk::gpud {

inline uint64_t ns_since(std::chrono::steady_clock::time_point t0) {
    const auto elapsed = std::chrono::steady_clock::now() - t0;
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace cuzk::gpud
