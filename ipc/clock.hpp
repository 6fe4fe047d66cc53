// The two clocks of the pipeline. realtime_ms is the timeline clock (CLOCK_REALTIME in ms, one clock for
// every process, so logs of all daemons merge); monotonic_ns measures durations (immune to clock steps).
#pragma once

#include <cstdint>
#include <ctime>

namespace cuzk::ipc {

inline std::uint64_t realtime_ms() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000u + static_cast<std::uint64_t>(ts.tv_nsec) / 1'000'000u;
}

inline std::uint64_t monotonic_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace cuzk::ipc
