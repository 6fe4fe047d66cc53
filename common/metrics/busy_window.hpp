// GPU efficiency over the last minutes: the fraction of a sliding window each GPU spent busy, from the intervals
// its workers held it (GPU_START to GPU_END). A GPU's two workers overlap (one uploads while the other computes),
// so the intervals of one GPU are merged before summing: time covered twice counts once and the fraction is
// never above 1. Times are ms on one clock (timeline::now_ms). Thread-safe: recorded by the event loop, read by
// the /metrics callback.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace cuzk::metrics {

class busy_window {
public:
    // Throws std::invalid_argument unless |window_ms| > 0.
    explicit busy_window(std::int64_t window_ms);

    // |gpu| was busy from |start_ms| to |end_ms|. Throws std::invalid_argument when end_ms < start_ms.
    // Intervals that ended two windows before the newest end recorded are dropped, so memory stays bounded
    // while a query up to a window earlier than that newest end (a stage's clock a little ahead) is exact.
    void record(int gpu, std::int64_t start_ms, std::int64_t end_ms);

    // Busy time of |gpu| within [now_ms - window, now_ms] (intervals clipped to it, overlaps counted once)
    // divided by the window: 0 for a GPU never recorded, 1 for one busy the whole window.
    double busy_fraction(int gpu, std::int64_t now_ms) const;

    // GPUs with at least one interval recorded, ascending (kept after their intervals age out, so an idle GPU
    // reports 0 rather than disappearing).
    std::vector<int> gpus() const;

    std::int64_t window_ms() const { return window_ms_; }

private:
    struct interval {
        std::int64_t start_ms;
        std::int64_t end_ms;
    };

    std::int64_t window_ms_;
    std::int64_t newest_end_ms_ = INT64_MIN;
    mutable std::mutex mutex_;
    std::map<int, std::vector<interval>> intervals_;
};

}  // namespace cuzk::metrics
