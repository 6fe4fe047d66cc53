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
// - warm_side_lane: after a preload, one run over a made-up witness, so that the first WinningPoSt finds the lane's
//   context and buffers made and every kernel launched once.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "common/witness/compact_vector_builder.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda_backend.hpp"
#include "gpud/cuda_backend/partition_work.hpp"
#include "gpud/cuda_backend/elapsed.hpp"
#include "gpud/cuda_backend/resident_params.hpp"

namespace cuzk::gpud {

namespace {

// A partition the side lane is built for, whether or not the lane is on.
bool side_lane_shape(const cuda_work* w, unsigned max_log) {
    return w && w->compact && w->compact->matrices && w->prepared.log_m <= max_log;
}

// |r| ready for a side run of a partition of |m|: resident with those matrices, B_G2's context, its scratch planned.
bool ready_for_side_run(const cuda_backend::resident_params* r, const r1cs::r1cs_matrices& m) {
    return r && r->g2 && r->holds(m) && r->scratch_planned;
}

// A full value of the scalar field from |i|: (2^63 + i)^4, reduced (well past 64 bits, so the MSMs treat it as a
// witness's large values).
ff::fr_t made_up_value(std::uint64_t i) {
    ff::fr_t x = ff::fr_t::from_u64((std::uint64_t(1) << 63) | i);
    x = x * x;
    return x * x;
}

}  // namespace

void cuda_backend::warm_side_lane(const groth16::parameters& params, const r1cs::r1cs_matrices& matrices) {
    const unsigned log_m = matrices.prover_domain_log();
    if (!b_g2_on_gpu_ || side_lane_refused_ || log_m > side_lane_max_log_) return;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        // ONE, then full values; the aux values zeros, ones and full values in turn, as a PoSt's mix them.
        std::vector<ff::fr_t> inputs(matrices.num_inputs);
        for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i] = i == 0 ? ff::fr_t::one() : made_up_value(i);
        witness::compact_vector_builder aux;
        aux.reserve(matrices.num_aux, matrices.num_aux / 3 + 1);
        for (std::uint64_t j = 0; j < matrices.num_aux; ++j)
            aux.push_back(j % 3 == 0 ? ff::fr_t::zero() : j % 3 == 1 ? ff::fr_t::one() : made_up_value(j));
        auto work = prepare_compact({inputs, aux.view(), &matrices}, params);
        std::lock_guard side(side_mu_);
        resident_params* r = ready_set(params, true);
        if (!ready_for_side_run(r, matrices)) {
            spdlog::debug("GPU {}: side lane not warmed: the set is not resident with its matrices", gpu_);
            return;
        }
        run_on_side_lane(as_cuda(*work), *r, false);
        ++side_lane_warm_ups_;
        spdlog::info("GPU {}: side lane warmed for a set of domain 2^{} in {:.1f} ms (one run over a made-up witness)",
                     gpu_, log_m, seconds_since(t0) * 1e3);
    } catch (const cuda::cuda_error& e) {
        side_lane_refused_ = true;
        spdlog::warn("GPU {}: warming the side lane failed ({}): WinningPoSt partitions go under the lock from now on",
                     gpu_, e.what());
    } catch (const std::exception& e) {
        spdlog::warn("GPU {}: warming the side lane failed ({}): its first partition makes what it needs", gpu_,
                     e.what());
    }
}

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
    try {
        {
            std::lock_guard side(side_mu_);
            if (resident_params* r = ready_set(*w.params, true); ready_for_side_run(r, *w.compact->matrices)) {
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
