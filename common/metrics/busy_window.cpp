#include "common/metrics/busy_window.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace cuzk::metrics {

busy_window::busy_window(std::int64_t window_ms) : window_ms_(window_ms) {
    if (window_ms <= 0) throw std::invalid_argument(fmt::format("busy window of {} ms: must be positive", window_ms));
}

void busy_window::record(int gpu, std::int64_t start_ms, std::int64_t end_ms) {
    if (end_ms < start_ms)
        throw std::invalid_argument(fmt::format("GPU {} busy interval ends at {} ms, before it starts at {} ms", gpu, end_ms, start_ms));
    std::lock_guard lock(mutex_);
    intervals_[gpu].push_back({start_ms, end_ms});
    if (end_ms <= newest_end_ms_) return;
    newest_end_ms_ = end_ms;
    // Nothing that ended before this can reach a window ending at or after |newest_end_ms_| - |window_ms_|.
    const auto horizon = newest_end_ms_ - 2 * window_ms_;
    for (auto& [id, list] : intervals_)
        std::erase_if(list, [horizon](const interval& i) { return i.end_ms < horizon; });
}

double busy_window::busy_fraction(int gpu, std::int64_t now_ms) const {
    const auto from = now_ms - window_ms_;
    std::vector<interval> clipped;
    {
        std::lock_guard lock(mutex_);
        const auto it = intervals_.find(gpu);
        if (it == intervals_.end()) return 0;
        for (const auto& i : it->second) {
            const auto start = std::max(i.start_ms, from);
            const auto end = std::min(i.end_ms, now_ms);
            if (start < end) clipped.push_back({start, end});
        }
    }
    std::sort(clipped.begin(), clipped.end(), [](const interval& a, const interval& b) { return a.start_ms < b.start_ms; });
    std::int64_t busy = 0;
    std::int64_t covered_to = from;  // everything before this is already counted
    for (const auto& i : clipped) {
        const auto start = std::max(i.start_ms, covered_to);
        if (i.end_ms > start) {
            busy += i.end_ms - start;
            covered_to = i.end_ms;
        }
    }
    return static_cast<double>(busy) / static_cast<double>(window_ms_);
}

std::vector<int> busy_window::gpus() const {
    std::lock_guard lock(mutex_);
    std::vector<int> ids;
    for (const auto& [id, list] : intervals_) ids.push_back(id);
    return ids;
}

}  // namespace cuzk::metrics
