// The side lane (cuda_backend.hpp): a small compact partition's kernels without the CUDA lock, beside the holder's.
// gpud sends WinningPoSt's priority class here (gpud/proving_backend.hpp), so a WinningPoSt under PoRep load waits
// for the holder's blocks in flight, not for its whole partition (~1.06 s at 32 GiB on an H200).
//   - The set is found among those make_resident_before_lock made resident and planned (|ready_|): no wait on
//     |mu_|, which the holder's kernels hold. A set whose plan an out-of-memory replan undid is proved by
//     run_kernels (it waits for the kernels running, once, and plans the set again).
//   - Its own NTT context and compact witness buffers (side_ntt_, side_witness_), the set's own MSM contexts: none
//     of the holder's buffers. Every stream of them is high-priority (cuda/stream_priority.hpp).
//   - A run that fails on the device (no memory for it, or any CUDA error) turns the side lane off for the process,
//     with a warning, and fails the partition retryable: proved again, it goes under the lock, the path every other
//     partition takes (where a refused allocation replans the scratch). A WinningPoSt is never lost to the lane.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <mutex>
#include <stdexcept>

#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda_backend.hpp"
#include "gpud/cuda_backend/partition_work.hpp"
#include "gpud/cuda_backend/resident_params.hpp"

namespace cuzk::gpud {

namespace {

// A partition the side lane is built for, whether or not the lane is on.
bool side_lane_shape(const cuda_work* w, unsigned max_log) {
    return w && w->compact && w->compact->matrices && w->prepared.log_m <= max_log;
}

}  // namespace

bool cuda_backend::can_run_beside_lock(const partition_work& work) const {
    return side_lane_shape(dynamic_cast<const cuda_work*>(&work), side_lane_max_log_) && !side_lane_refused_.load();
}

void cuda_backend::run_kernels_beside_lock(partition_work& work) {
    auto& w = as_cuda(work);
    if (!side_lane_shape(&w, side_lane_max_log_))
        throw std::logic_error("CUDA backend: run_kernels_beside_lock of a partition the side lane does not take");
    // Turned off by another worker's failure since gpud asked: proved again, under the lock.
    if (side_lane_refused_)
        throw cuda::cuda_error(fmt::format("GPU {}: the side lane was turned off; the partition is proved again "
                                           "under the CUDA lock",
                                           gpu_));
    auto usable = [&](resident_params* r) {
        return r && r->g2 && r->holds(*w.compact->matrices) && r->scratch_planned;
    };
    try {
        {
            std::lock_guard side(side_mu_);
            if (resident_params* r = ready_set(*w.params, true); usable(r)) {
                run_on_side_lane(w, *r);
                return;
            }
        }
        // Not ready (a replan after an out-of-memory undid its plan, or it was never made resident here): the run
        // under |mu_| makes it resident and plans it, as for any partition, and the next side run finds it so.
        run_kernels(w);
    } catch (const cuda::cuda_error& e) {
        // A witness the device finds inconsistent (std::invalid_argument) is the input's fault, not the lane's.
        side_lane_refused_ = true;
        spdlog::warn("GPU {}: a partition's kernels beside the CUDA lock failed ({}): WinningPoSt partitions go under "
                     "the lock from now on",
                     gpu_, e.what());
        throw cuda::cuda_error(fmt::format("GPU {}: kernels beside the CUDA lock's holder failed ({}); the partition "
                                           "is proved again under the lock",
                                           gpu_, e.what()));
    }
}

}  // namespace cuzk::gpud
