// The CUDA backend's three steps' entry points and its construction; the parts they run are in cuda_backend/
// (cuda_backend.hpp lists them).
#include "gpud/cuda_backend.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <future>
#include <span>

#include "common/msm/msm.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/host_pin.hpp"
#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/ntt.hpp"
#include "gpud/cuda/pinned_pool.hpp"
#include "gpud/cuda/r1cs_witness.hpp"
#include "gpud/cuda_backend/b_g2_prestage.hpp"
#include "gpud/cuda_backend/compact_checks.hpp"
#include "gpud/cuda_backend/host_pinning.hpp"
#include "gpud/cuda_backend/partition_work.hpp"
#include "gpud/cuda_backend/resident_params.hpp"

namespace cuzk::gpud {

cuda_backend::cuda_backend(int gpu, const cuda_settings& settings)
    : gpu_(gpu),
      b_g2_on_gpu_(settings.b_g2_on_gpu),
      placement_(settings.placement),
      release_host_points_(settings.release_host_points),
      sparse_streaming_(settings.sparse_streaming),
      side_lane_max_log_(settings.side_lane_max_log),
      pin_min_bytes_(size_t(settings.pin_min_bytes)),
      pins_(std::make_shared<pin_counters>()),
      scalar_cache_bytes_(size_t(settings.pinned_cache_bytes)) {
    std::string why;
    const int n = cuda::device_count(&why);
    if (gpu < 0 || gpu >= n)
        throw cuda::cuda_error(fmt::format("[gpud] CUDA backend: GPU {} is not usable ({} device(s){}{})", gpu, n,
                                           why.empty() ? "" : ": ", why));
    const auto identity = cuda::identify_device(gpu);
    device_name_ = identity.name;
    device_total_bytes_ = identity.total_bytes;
    ntt_ = std::make_unique<cuda::ntt_context>(gpu);
    if (b_g2_on_gpu_) b_g2_board_ = std::make_shared<b_g2_board>();
    if (pin_min_bytes_ != SIZE_MAX)
        scalar_pool_ = std::make_shared<cuda::pinned_pool>(gpu, pin_min_bytes_, scalar_cache_bytes_);
    spdlog::info("CUDA backend on GPU {}: {}; B_G2 on the {}; parameters' points on the {}, their host copy {}; "
                 "host ranges of {} pinned for copies{}",
                 gpu, cuda::device_description(gpu), b_g2_on_gpu_ ? "GPU" : "CPU",
                 placement_ == params_placement::device ? "device"
                 : placement_ == params_placement::host  ? "host (streamed)"
                 : placement_ == params_placement::split ? "device where they fit, else split between the two"
                                                        : "device where they fit, else the host",
                 release_host_points_ ? "released once uploaded" : "kept",
                 pin_min_bytes_ == SIZE_MAX ? std::string("no size")
                                           : fmt::format("{} bytes and more", pin_min_bytes_),
                 scalar_pool_ ? fmt::format(", A/B scalars in reused page-locked buffers (up to {:.1f} GiB cached)",
                                            double(scalar_cache_bytes_) / double(1ull << 30))
                              : std::string());
}

cuda_backend::~cuda_backend() = default;

// Not under |mu_|: the worker asking failed outside the kernels or has left them, and a worker inside them
// must not delay the answer beyond the device's own queue (cudaDeviceSynchronize waits for it).
std::string cuda_backend::device_lost() { return cuda::context_error(gpu_); }

std::vector<std::pair<std::string, std::uint64_t>> cuda_backend::counters() const {
    const pin_stats p = host_pin_stats();
    const b_g2_prestage_stats b = b_g2_prestage();
    return {{"pinned_ranges", p.pinned_ranges},
            {"pinned_bytes", p.pinned_bytes},
            {"pageable_ranges", p.pageable_ranges},
            {"pageable_bytes", p.pageable_bytes},
            {"pin_refused_ranges", p.refused_ranges},
            {"unpin_failures", p.unpin_failures},
            {"pinned_now_bytes", p.pinned_now_bytes},
            {"pooled_ranges", p.pooled_ranges},
            {"pool_reused", p.pool_reused},
            {"pool_locked_bytes", p.pool_locked_bytes},
            {"b_g2_prestage_copied", b.copied},
            {"b_g2_prestage_used", b.used},
            {"row_a_prestage_copied", b.row_a_copied},
            {"row_a_prestage_used", b.row_a_used},
            {"l_a_msm_shared", l_a_shared_.load()},
            {"compact_partitions", compact_partitions_.load()},
            {"compact_uploaded_bytes", compact_uploaded_bytes_.load()},
            {"out_of_memory_replans", oom_replans_.load()},
            {"msm_scratch_bytes", msm_scratch_bytes_.load()},
            {"host_points_released_bytes", host_points_released_bytes()},
            {"prepares_making_resident", prepares_making_resident_.load()},
            {"beside_lock_partitions", beside_lock_partitions_.load()},
            {"side_lane_warm_ups", side_lane_warm_ups_.load()},
            {"side_lane_off", side_lane_refused_.load() ? 1u : 0u},
            {"streamed_segments", streamed_segments_.load()},
            {"sparse_segments", sparse_segments_.load()}};
}

std::optional<device_info> cuda_backend::device() const {
    device_info d{device_name_, device_total_bytes_, 0};
    try {
        d.free_bytes = cuda::free_device_memory(gpu_);
    } catch (const cuda::cuda_error&) {
        // A lost context answers nothing: the status still names the device, with no free memory.
    }
    return d;
}

pinned_memory cuda_backend::pinned() const {
    uint64_t bytes = host_region_bytes() + pins_->pinned_now_bytes.load() + params_pinned_bytes_.load();
    if (scalar_pool_) bytes += scalar_pool_->snapshot().locked_bytes;
    return {bytes, scalar_pool_ ? scalar_cache_bytes_ : 0};
}

std::unique_ptr<partition_work> cuda_backend::prepare(const groth16::witness_view& w,
                                                      const groth16::parameters& params) {
    auto work = std::make_unique<cuda_work>(scalar_pool_);
    prepare_into(*work, w, params);
    return work;
}

std::unique_ptr<partition_work> cuda_backend::prepare_compact(const compact_partition& w,
                                                              const groth16::parameters& params) {
    auto work = std::make_unique<cuda_work>(scalar_pool_);
    if (!b_g2_on_gpu_) {
        // B_G2's thread reads B's scalars in host memory: the partition is made whole here and proved as a full
        // witness (~17 GB of host memory and of copies at the 32 GiB shape).
        work->expanded = expand_on_host(w);
        prepare_into(*work, work->expanded->view, params);
        return work;
    }
    work->prepared.log_m = check_compact_partition(w, params);
    make_resident_before_lock(params, &w, work->prepared.log_m, false);
    work->serial = next_serial_++;
    work->params = &params;
    work->counters = pins_;
    work->compact = w;
    return work;
}

void cuda_backend::prepare_into(cuda_work& wk, const groth16::witness_view& w, const groth16::parameters& params) {
    auto* work = &wk;
    work->serial = next_serial_++;
    work->params = &params;
    work->counters = pins_;
    // A's aux scalars are left in the witness's aux where A uses them all (run_kernels runs L and A over them).
    groth16::prepare_partition_without_rows(w, params, work->prepared, nullptr,
                                            groth16::a_aux_storage::in_aux_when_dense);
    make_resident_before_lock(params, nullptr, work->prepared.log_m, true);
    work->rows[0] = w.a;
    work->rows[1] = w.b;
    work->rows[2] = w.c;
    const size_t n = w.a.size();
    if (w.b.data() == w.a.data() + n && w.c.data() == w.b.data() + n && w.inputs.data() == w.c.data() + n &&
        w.aux.data() == w.inputs.data() + w.inputs.size())
        work->witness_block = std::span<const ff::fr_t>(w.a.data(), 3 * n + w.inputs.size() + w.aux.size());
    // B_G2 on the CPU: overlapping the pinning, the wait for the lock and the kernels; it reads only b_scalars
    // and params.b_g2, which nothing else writes (pinning does not write).
    if (!b_g2_on_gpu_) {
        const auto* scalars = &work->prepared.b_scalars;
        const auto* points = &params.b_g2;
        work->b_g2 = std::async(std::launch::async, [scalars, points] {
            return msm::multi_exp<ff::fp2_t>(std::span<const ec::g2_affine_t>(*points),
                                             std::span<const ff::fr_t>(*scalars));
        });
    }
    pin_host_ranges(*work);
    // Last, once the scalars are pinned and final: from here the lock holder's B_G2 thread may copy them.
    offer_b_g2_scalars(*work, params);
}

groth16::proof cuda_backend::finish(partition_work& work, groth16::rng_fn& rng) {
    auto& w = as_cuda(work);
    if (!w.kernels_done) throw std::logic_error("CUDA backend: finish before run_kernels");
    const ec::g2_jacobian_t b2 = w.b_g2.valid() ? w.b_g2.get() : w.b2_acc;
    groth16::proof pi = groth16::blind_proof(w.kernels, b2, w.params->vk, rng);
    // Here rather than in the destructor, so gpud's tail time shows it (the B_G2 thread is done).
    w.release_host();
    return pi;
}

}  // namespace cuzk::gpud
