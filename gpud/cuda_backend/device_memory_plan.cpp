#include "gpud/cuda_backend/device_memory_plan.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/ntt.hpp"
#include "gpud/cuda/r1cs_device.hpp"
#include "gpud/cuda/r1cs_witness.hpp"
#include "gpud/cuda_backend.hpp"
#include "gpud/cuda_backend/partition_work.hpp"
#include "gpud/cuda_backend/resident_params.hpp"
#include "gpud/scratch_plan.hpp"

namespace cuzk::gpud {

namespace {
double gib(size_t b) { return double(b) / double(1ull << 30); }
}  // namespace

size_t ntt_still_needed(unsigned log_m, size_t ntt_held) {
    const size_t need = log_m > 0 ? cuda::ntt_context::device_bytes_for(log_m) : 0;
    return need > ntt_held ? need - ntt_held : 0;
}

scratch_plan plan_msm_scratch(int gpu, size_t g1_points, size_t g2_points, unsigned log_m, size_t held_scratch,
                              size_t ntt_held, size_t margin) {
    const size_t ntt_more = ntt_still_needed(log_m, ntt_held);
    const size_t have = cuda::free_device_memory(gpu) + held_scratch;
    const size_t kept = ntt_more + device_reserve + margin;
    const size_t available = have > kept ? have - kept : 0;
    scratch_demand g1{cuda::g1_msm_context::scratch_estimate(g1_points, g1_points),
                      cuda::g1_msm_context::scratch_estimate(g1_points, g1_points, 1)};
    scratch_demand g2;
    if (g2_points > 0)
        g2 = {cuda::g2_msm_context::scratch_estimate(g2_points, g2_points),
              cuda::g2_msm_context::scratch_estimate(g2_points, g2_points, 1)};
    return plan_scratch(available, g1, g2);
}

void cuda_backend::plan_device_memory(resident_params& r, unsigned log_m, bool row_a_spare) {
    // The largest run of each context: a whole query resident, its resident part, a segment streamed.
    const size_t g1_max = r.largest_g1_run();
    const size_t g2_max = r.largest_g2_run();
    const size_t held = r.g1->scratch_bytes() + (r.g2 ? r.g2->scratch_bytes() : 0);
    scratch_plan plan = plan_msm_scratch(gpu_, g1_max, g2_max, log_m, held, ntt_->device_bytes(), oom_margin_);
    // The spare NTT slot for the waiting partition's row a (4 GiB at 2^27), where the B_G2 thread can copy it
    // and the G1 MSMs still keep every window in one pass beside it: an extra pass of the H MSM would cost more
    // than the ~25 ms the spare saves. Not for compact partitions, which copy no row.
    const size_t spare_need = size_t(1) << log_m;
    if (row_a_spare && b_g2_board_ && r.g2 && !r.on_host() && log_m > 0 && ntt_->spare_capacity() < spare_need &&
        plan.fits && plan.g1_limit == 0) {
        // A row a staged for a partition of other parameters is lost when the spare is reallocated: that
        // partition copies its own (no B_G2 thread of this partition runs yet to stage another).
        spare_row_a_of_ = 0;
        try {
            ntt_->reserve_spare(log_m);
            const scratch_plan with_spare =
                plan_msm_scratch(gpu_, g1_max, g2_max, log_m, held, ntt_->device_bytes(), oom_margin_);
            if (with_spare.fits && with_spare.g1_limit == 0) {
                plan = with_spare;
                spdlog::info("GPU {}: a spare NTT slot of {:.1f} GiB holds row a of a partition waiting for the "
                             "lock, copied under the holder's kernels",
                             gpu_, double(spare_need * sizeof(ff::fr_t)) / double(1ull << 30));
            } else {
                ntt_->release_spare();
                spdlog::info("GPU {}: no room for a spare NTT slot beside the MSM scratch: each partition "
                             "copies its row a under the lock",
                             gpu_);
            }
        } catch (const cuda::cuda_error& e) {
            ntt_->release_spare();
            spdlog::info("GPU {}: no spare NTT slot ({}): each partition copies its row a under the lock", gpu_,
                         e.what());
        }
    }
    r.g1->set_scratch_limit(plan.g1_limit);
    if (r.g2) r.g2->set_scratch_limit(plan.g2_limit);
    r.scratch_planned = true;
    r.witness_bytes_planned = compact_witness_ ? compact_witness_->device_bytes() : 0;
    if (plan.fits)
        spdlog::info("GPU {}: {}", gpu_, plan.summary());
    else
        spdlog::warn("GPU {}: {}", gpu_, plan.summary());
}

void cuda_backend::plan_after_out_of_memory(const cuda_work& w, const cuda::device_out_of_memory& e) {
    // Every set's scratch is read and freed below, a small set's too: not while the side lane runs on one.
    std::lock_guard side(side_mu_);
    size_t free = 0;
    try {
        free = cuda::free_device_memory(gpu_);
    } catch (const cuda::cuda_error&) {
        // Asked only for the log.
    }
    size_t points = 0, matrices = 0, g1 = 0, g2 = 0;
    for (auto& [params, r] : resident_) {
        points += r->device_point_bytes();
        if (r->matrices) matrices += r->matrices->device_bytes();
        if (r->g1) g1 += r->g1->scratch_bytes();
        if (r->g2) g2 += r->g2->scratch_bytes();
    }
    oom_margin_ += e.bytes();
    ++oom_replans_;
    spdlog::warn("GPU {}: {} in a {} partition's kernels; device memory then: {:.2f} GiB free, points {:.2f}, "
                 "matrices {:.2f}, compact witness {:.2f}, NTT {:.2f}, MSM scratch G1 {:.2f} and G2 {:.2f} GiB; "
                 "the scratch is freed and planned again with {:.2f} GiB kept out",
                 gpu_, e.what(), w.compact ? "compact" : "full-witness", gib(free), gib(points), gib(matrices),
                 gib(compact_witness_ ? compact_witness_->device_bytes() : 0), gib(ntt_->device_bytes()), gib(g1),
                 gib(g2), gib(oom_margin_ + device_reserve));
    for (auto& [params, r] : resident_) {
        // A set split between the device and host memory took what the estimates said the kernels would leave
        // free: it streams all its points from now on (today's placement of a set that does not fit), so the
        // next plan has its resident points' memory too, whatever the estimates missed.
        if (r->on_host() && r->g1_resident > 0) stream_whole(*r);
        if (r->g1) r->g1->release_scratch();
        if (r->g2) r->g2->release_scratch();
        r->scratch_planned = false;
    }
    note_scratch_held();
}

void cuda_backend::note_scratch_held() {
    std::lock_guard side(side_mu_);  // a small set's scratch may be growing on the side lane
    uint64_t held = 0;
    for (const auto& [params, r] : resident_) held += (r->g1 ? r->g1->scratch_bytes() : 0) + (r->g2 ? r->g2->scratch_bytes() : 0);
    msm_scratch_bytes_ = held;
}

}  // namespace cuzk::gpud
