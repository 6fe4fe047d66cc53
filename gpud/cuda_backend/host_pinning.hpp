// The page locks of the host ranges a partition's kernels copy from (cuda_backend::pin_host_ranges, in prepare,
// outside the CUDA lock; undone by cuda_work::release_host), and their counters (cuda_backend::pin_stats),
// shared by the backend and its works, which may outlive a call into the backend.
#pragma once

#include <atomic>
#include <cstdint>

#include "gpud/cuda_backend.hpp"

namespace cuzk::gpud {

struct cuda_backend::pin_counters {
    std::atomic<uint64_t> pinned_ranges{0}, pinned_bytes{0}, pageable_ranges{0}, pageable_bytes{0};
    std::atomic<uint64_t> refused_ranges{0}, unpin_failures{0}, pinned_now_bytes{0};
    std::atomic<uint64_t> pooled_ranges{0}, pooled_bytes{0};
    std::atomic<uint64_t> pin_ns{0}, unpin_ns{0};
    std::atomic<bool> warned_refusal{false}, announced{false};
};

}  // namespace cuzk::gpud
