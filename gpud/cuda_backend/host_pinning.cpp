#include "gpud/cuda_backend/host_pinning.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>

#include "gpud/cuda/host_pin.hpp"
#include "gpud/cuda/pinned_pool.hpp"
#include "gpud/cuda_backend/elapsed.hpp"
#include "gpud/cuda_backend/partition_work.hpp"

namespace cuzk::gpud {

void cuda_backend::register_host_region(std::span<const std::byte> region) {
    region_.reset();
    if (region.empty()) return;
    const auto t0 = std::chrono::steady_clock::now();
    auto pin = std::make_unique<cuda::host_pin>(gpu_, region.data(), region.size());
    if (!pin->pinned()) {
        spdlog::warn("GPU {}: the witness region ({:.2f} GiB) could not be page-locked: {}; its ranges are pinned "
                     "per partition instead",
                     gpu_, double(region.size()) / double(1ull << 30), pin->error());
        return;
    }
    spdlog::info("GPU {}: witness region page-locked once ({:.2f} GiB in {:.2f} s): rows and aux are copied from "
                 "it without a registration per partition",
                 gpu_, double(region.size()) / double(1ull << 30), seconds_since(t0));
    region_ = std::move(pin);
}

size_t cuda_backend::host_region_bytes() const { return region_ ? region_->bytes() : 0; }

cuda_backend::pin_stats cuda_backend::host_pin_stats() const {
    const pin_counters& c = *pins_;
    pin_stats st;
    st.pinned_ranges = c.pinned_ranges;
    st.pinned_bytes = c.pinned_bytes;
    st.pageable_ranges = c.pageable_ranges;
    st.pageable_bytes = c.pageable_bytes;
    st.refused_ranges = c.refused_ranges;
    st.unpin_failures = c.unpin_failures;
    st.pinned_now_bytes = c.pinned_now_bytes;
    st.pooled_ranges = c.pooled_ranges;
    st.pooled_bytes = c.pooled_bytes;
    if (scalar_pool_) {
        const auto ps = scalar_pool_->snapshot();
        st.pool_locked_new = ps.locked_new;
        st.pool_reused = ps.reused;
        st.pool_refused = ps.refused;
        st.pool_locked_bytes = ps.locked_bytes;
    }
    st.pin_seconds = double(c.pin_ns) * 1e-9;
    st.unpin_seconds = double(c.unpin_ns) * 1e-9;
    return st;
}

// CPU, outside the CUDA lock: page-locks the ranges run_kernels copies from. No vector of |w.prepared| is
// resized or moved from here until release_host has unpinned it.
void cuda_backend::pin_host_ranges(cuda_work& w) {
    pin_counters& c = *pins_;
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t pinned = 0;
    int n_pinned = 0;
    for (int i = 0; i < cuda_work::ranges; ++i) {
        // One row has no coefficient with a point: the rows are not copied then.
        if (w.prepared.log_m == 0 && i <= cuda_work::row_c) continue;
        auto r = w.host_range(i);
        if (!w.witness_block.empty() && (i == cuda_work::row_a || i == cuda_work::aux)) {
            // One registration for the whole witness block, made at the first of its ranges to be copied.
            const bool rows_copied = w.prepared.log_m > 0;
            if (i == cuda_work::aux && rows_copied) continue;
            if (i == cuda_work::row_a || !rows_copied) r = w.witness_block;
        } else if (!w.witness_block.empty() && (i == cuda_work::row_b || i == cuda_work::row_c)) {
            continue;
        }
        const uint64_t bytes = r.size_bytes();
        if (bytes == 0) continue;
        if (region_ && region_->contains(r.data(), bytes)) continue;  // locked once already
        if (scalar_pool_ && scalar_pool_->contains(r.data(), bytes)) {  // a reused page-locked buffer
            ++c.pooled_ranges;
            c.pooled_bytes += bytes;
            continue;
        }
        if (bytes < pin_min_bytes_) {
            ++c.pageable_ranges;
            c.pageable_bytes += bytes;
            continue;
        }
        const auto ti = std::chrono::steady_clock::now();
        cuda::host_pin pin(gpu_, r.data(), bytes);
        c.pin_ns += ns_since(ti);
        if (pin.pinned()) {
            ++c.pinned_ranges;
            c.pinned_bytes += bytes;
            c.pinned_now_bytes += bytes;
            pinned += bytes;
            ++n_pinned;
            w.pins[i] = std::move(pin);
            continue;
        }
        ++c.pageable_ranges;
        c.pageable_bytes += bytes;
        ++c.refused_ranges;
        // A page shared with a range pinned already (small heap blocks) is expected; anything else is worth
        // one warning per backend, then debug lines.
        if (!pin.already_registered() && !c.warned_refusal.exchange(true))
            spdlog::warn("GPU {}: {} not pinned, copied from pageable memory (slower, under the CUDA lock): {}; "
                         "further refusals are logged at debug level",
                         gpu_, cuda_work::range_names[i], pin.error());
        else
            spdlog::debug("GPU {}: {} not pinned: {}", gpu_, cuda_work::range_names[i], pin.error());
    }
    if (n_pinned > 0 && !c.announced.exchange(true))
        spdlog::info("GPU {}: host ranges pinned for the copies (first partition: {} ranges, {:.2f} GiB in {:.3f} s, "
                     "outside the CUDA lock)",
                     gpu_, n_pinned, double(pinned) / double(1ull << 30), seconds_since(t0));
    else
        spdlog::debug("GPU {}: {} host ranges pinned, {:.2f} GiB in {:.3f} s", gpu_, n_pinned,
                      double(pinned) / double(1ull << 30), seconds_since(t0));
}

}  // namespace cuzk::gpud
