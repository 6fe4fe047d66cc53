#include "gpud/cuda_backend/resident_params.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <new>
#include <optional>
#include <span>
#include <tuple>
#include <thread>

#include "common/util/resources.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/ntt.hpp"
#include "gpud/cuda/r1cs_witness.hpp"
#include "gpud/cuda_backend/device_memory_plan.hpp"
#include "gpud/cuda_backend/elapsed.hpp"
#include "gpud/scratch_plan.hpp"

namespace cuzk::gpud {

namespace {

using resident_params = cuda_backend::resident_params;
constexpr double gib = double(1ull << 30);

// |q| takes the next |v|.size() points of its context, from |next| on.
template <class P>
void place(resident_params::query& q, const std::vector<P>& v, size_t& next) {
    q.host = v.data();
    q.size = v.size();
    q.first = next;
    next += v.size();
}

// Where the points of one parameters object go on GPU |gpu|, and the sizes that decide it.
struct points_layout {
    int gpu = 0;
    params_placement placement = params_placement::automatic;
    bool b_g2_on_gpu = true;
    bool release_host_points = false;  // [gpud] release_host_points
    bool sparse_streaming = false;     // [gpud] sparse_streaming: the host copy mapped, sparse segments gathered
    std::optional<size_t> forced_g1_resident;  // cuda_backend::split_points_for_test
    bool may_split = false;  // params_memory = "split", a big set, no other big one resident: some points may stay
    size_t n_g1 = 0;    // h, l, a, b_g1 back to back
    size_t n_g2 = 0;    // b_g2, 0 with B_G2 on the CPU
    size_t g1_max = 0;  // the largest G1 query
    size_t need = 0;    // device bytes of all the points
    size_t avail = 0;   // device bytes free now
    unsigned log_m = 0;  // the NTT domain the h query implies
    // A set small enough for the side lane gets high-priority streams (cuda/stream_priority.hpp).
    cuda::stream_priority streams = cuda::stream_priority::normal;
    // What the kernels take beside the points at the least for runs of (G1, G2) points: the NTTs at 2^log_m,
    // one window per MSM pass, and a reserve (the CUDA runtime's own, rounding).
    std::function<size_t(size_t g1_run, size_t g2_run)> least_beside;
};

// One query packed into the host copy by up to 8 threads (39 GiB of G1 points at 32 GiB: a memory copy per
// point); each context streams its segments from there. A part whose thread cannot be started is packed on this
// one: a packing left half done would lose points whose vectors were already given back (release_host_copy).
template <class F>
void pack_points(std::span<const ec::affine_t<F>> q, std::byte* out) noexcept {
    std::array<std::thread, 8> threads;
    const size_t n = q.size(), per = std::max<size_t>(1, (n + threads.size() - 1) / threads.size());
    size_t t = 0;
    for (size_t lo = 0; lo < n; lo += per, ++t) {
        const auto part = std::span<const ec::affine_t<F>>(q.data() + lo, std::min(per, n - lo));
        std::byte* dst = out + lo * 2 * sizeof(F);
        try {
            threads[t] = std::thread([part, dst] { cuda::msm_context<F>::pack_points(part, dst); });
        } catch (const std::system_error&) {
            cuda::msm_context<F>::pack_points(part, dst);
        }
    }
    for (auto& th : threads)
        if (th.joinable()) th.join();
}

// Once |v|'s points are on the device or packed, the pages of its host vector go back to the kernel (where the
// backend was told to), kept in |r| to be restored when the set goes. Where the kernel refuses, the copy stays and
// a warning says so: more host memory held, nothing else.
template <class P>
void release_host_copy(resident_params& r, const std::vector<P>& v, const char* name, const points_layout& fit) {
    if (!fit.release_host_points) return;
    util::released_pages pages(v.data(), v.size() * sizeof(P));
    if (!pages.error().empty()) {
        spdlog::warn("GPU {}: the host copy of the parameters' {} points ({:.2f} GiB) could not be given back to the "
                     "kernel ({}): it stays in host memory",
                     fit.gpu, name, double(v.size() * sizeof(P)) / gib, pages.error());
        return;
    }
    if (pages.bytes() != 0) r.released.push_back(std::move(pages));
}

// " (their host copy, X GiB, given back)" where it was, for the logs.
std::string released_note(const resident_params& r) {
    return r.released.empty() ? std::string()
                              : fmt::format("; their host copy ({:.2f} GiB) given back to the kernel",
                                            double(r.released_bytes()) / gib);
}

// ", only the points with a scalar other than 0 where ..." with [gpud] sparse_streaming, for the logs: whether the
// contexts can gather (the copy page-locked and mapped) or copy every segment whole after all.
std::string sparse_note(const resident_params& r, const points_layout& fit) {
    if (!fit.sparse_streaming) return std::string();
    const bool g2_streamed = r.host_g2 != nullptr;
    if (r.g1->sparse_streaming_available() && (!g2_streamed || r.g2->sparse_streaming_available()))
        return " ([gpud] sparse_streaming: those with a scalar other than 0 alone, where at most 3/4 of a segment)";
    return " ([gpud] sparse_streaming asked, but the host copy is not mapped: every segment whole)";
}

// The host copy is as large as the points (47 GiB at 32 GiB): a host without room gets a message in those
// terms (retryable: memory other work holds may come free), not a bare std::bad_alloc.
std::unique_ptr<std::byte[]> host_points_buffer(size_t bytes, const points_layout& fit) {
    try {
        return std::unique_ptr<std::byte[]>(new std::byte[std::max<size_t>(bytes, 1)]);
    } catch (const std::bad_alloc&) {
        throw cuda::cuda_error(fmt::format(
            "GPU {}: the host copy of the parameters' points ({:.1f} GiB; [gpud] params_memory = \"{}\", "
            "{:.1f} GiB of device memory free for {:.1f} GiB of points) could not be allocated: add host "
            "memory, or use a GPU with room for the points",
            fit.gpu, double(bytes) / gib, to_string(fit.placement), double(fit.avail) / gib, double(fit.need) / gib));
    }
}

// The points in host memory, streamed to the contexts in segments of 2^25 G1 and 2^24 G2 points (two buffers
// each: 6.4 GB apiece), halved while they and the least scratch for runs of that size do not fit
// (choose_segments). Where |fit| allows a split (params_memory = "split", no other big set resident), as many as
// fit beside the segments also stay on the device (choose_points_split: the G1 context's first points, l, a,
// b_g1, then h's; B_G2's where streaming them would save no device memory), so that only the rest stream: on an
// H100 80GB, a 32 GiB PoRep set's l, a and most of b_g1. The host copy holds every G1 point all the same, so that
// the split can be undone (cuda_backend::stream_whole) without the parameters' vectors, given back by then.
void stream_points_from_host(resident_params& r, const groth16::parameters& params, const points_layout& fit,
                             std::chrono::steady_clock::time_point t0) {
    auto device_need = [&](size_t s1, size_t s2) {
        return 2 * s1 * 2 * sizeof(ff::fp_t) + 2 * s2 * 2 * sizeof(ff::fp2_t) + fit.least_beside(s1, s2);
    };
    const stream_segments seg = choose_segments(fit.g1_max, fit.n_g2, fit.avail, device_need);
    if (!seg.fits)
        throw cuda::cuda_error(fmt::format(
            "GPU {}: {:.1f} GiB of device memory is free, and even with the parameters' points in host memory "
            "the NTTs at 2^{} and the MSMs' least scratch need {:.1f} GiB: this GPU cannot prove this circuit; "
            "use a GPU with more memory{}, or [gpud] backend = \"cpu\"",
            fit.gpu, double(fit.avail) / gib, fit.log_m, double(device_need(seg.g1, seg.g2)) / gib,
            fit.b_g2_on_gpu ? ", [gpud] b_g2_on_gpu = false" : ""));
    points_split split;
    if (fit.forced_g1_resident)
        split = {std::min(*fit.forced_g1_resident, fit.n_g1), true, true};
    else if (fit.may_split)
        split = choose_points_split({r.l.size, r.a.size, r.b_g1.size, r.h.size}, fit.n_g2, seg, 2 * sizeof(ff::fp_t),
                                    2 * sizeof(ff::fp2_t), fit.avail, split_keeps_free, fit.least_beside);
    r.g1_resident = split.g1_resident;
    const bool g2_streamed = fit.b_g2_on_gpu && !split.g2_resident;
    // The copy is written as it is made: on a host without room for it the kernel would kill gpud part way
    // (new[] succeeds on Linux whatever is free), so the room is asked first. With the parameters' own vectors
    // given back one by one as each is packed, the copy never holds more beside them than the largest query.
    const size_t host_bytes =
        fit.n_g1 * 2 * sizeof(ff::fp_t) + (g2_streamed ? fit.n_g2 * 2 * sizeof(ff::fp2_t) : 0);
    const size_t host_peak =
        fit.release_host_points
            ? std::max(fit.g1_max * 2 * sizeof(ff::fp_t), g2_streamed ? fit.n_g2 * 2 * sizeof(ff::fp2_t) : 0)
            : host_bytes;
    const std::optional<uint64_t> host_available = host_memory_available_bytes();
    if (!host_memory_fits(host_peak, host_available))
        throw cuda::cuda_error(fmt::format(
            "GPU {}: the parameters' points do not fit the device ({:.1f} GiB free for {:.1f} GiB of points; "
            "[gpud] params_memory = \"{}\"), and their host copy ({:.1f} GiB{}) does not fit the {:.1f} GiB of "
            "host memory available (MemAvailable, {:.0f} GiB kept free): not made, as the kernel would kill gpud "
            "while writing it; use a GPU with room for the points, add host memory, or make the ring smaller "
            "([ring] slots x slot_bytes is held in memory)",
            fit.gpu, double(fit.avail) / gib, double(fit.need) / gib, to_string(fit.placement),
            double(host_bytes) / gib,
            fit.release_host_points
                ? fmt::format(", {:.1f} GiB at once beside the parameters' vectors given back as it is made",
                              double(host_peak) / gib)
                : std::string(),
            double(*host_available) / gib, double(HOST_MEMORY_RESERVE) / gib));
    r.segment_g1 = seg.g1;
    r.segment_g2 = seg.g2;
    // What may throw first (the host copy's allocation, the contexts, their resident points and segment buffers
    // on the device), then the packing, which gives the parameters' vectors back as it goes and so must not stop
    // half way.
    r.host_g1 = host_points_buffer(fit.n_g1 * 2 * sizeof(ff::fp_t), fit);
    r.g1 = std::make_unique<cuda::g1_msm_context>(fit.gpu, fit.streams);
    r.g1->use_host_points(r.host_g1.get() + r.g1_resident * 2 * sizeof(ff::fp_t), fit.n_g1,
                          std::max<size_t>(r.segment_g1, 1), r.g1_resident);
    if (fit.b_g2_on_gpu) {
        size_t next = 0;
        place(r.b_g2, params.b_g2, next);
        r.g2 = std::make_unique<cuda::g2_msm_context>(fit.gpu, fit.streams);
        if (g2_streamed) {
            r.host_g2 = host_points_buffer(fit.n_g2 * 2 * sizeof(ff::fp2_t), fit);
            r.g2->use_host_points(r.host_g2.get(), fit.n_g2, std::max<size_t>(r.segment_g2, 1));
        } else {
            r.g2->upload_points(params.b_g2);
        }
    }
    r.released.reserve(5);  // no allocation between giving one vector back and the next
    for (const auto& [name, q, vec] :
         {std::tuple{"l", &r.l, &params.l}, std::tuple{"a", &r.a, &params.a}, std::tuple{"b_g1", &r.b_g1, &params.b_g1},
          std::tuple{"h", &r.h, &params.h}}) {
        pack_points<ff::fp_t>(std::span<const ec::g1_affine_t>(*vec), r.host_g1.get() + q->first * 2 * sizeof(ff::fp_t));
        release_host_copy(r, *vec, name, fit);
    }
    if (r.g2) {
        if (g2_streamed) pack_points<ff::fp2_t>(params.b_g2, r.host_g2.get());
        release_host_copy(r, params.b_g2, "b_g2", fit);
    }
    // Page-locked once written: locking commits every page of the copy at once. The resident part then goes up
    // from it at the link's rate. Mapped into the device's address space too with sparse streaming, whose gather
    // kernel reads it in place.
    r.pin_g1 = cuda::host_pin(fit.gpu, r.host_g1.get(), fit.n_g1 * 2 * sizeof(ff::fp_t), fit.sparse_streaming);
    if (r.host_g2)
        r.pin_g2 = cuda::host_pin(fit.gpu, r.host_g2.get(), fit.n_g2 * 2 * sizeof(ff::fp2_t), fit.sparse_streaming);
    r.g1->upload_packed_at(0, r.host_g1.get(), r.g1_resident);
    const bool pinned = r.pin_g1.pinned() && (!r.host_g2 || r.pin_g2.pinned());
    if (!pinned)
        spdlog::warn("GPU {}: the parameters' host copy could not be page-locked ({}): its segments are copied "
                     "from pageable memory, slower{}",
                     fit.gpu, !r.pin_g1.pinned() ? r.pin_g1.error() : r.pin_g2.error(),
                     fit.sparse_streaming ? ", and whole ([gpud] sparse_streaming needs the copy page-locked)" : "");
    if (fit.sparse_streaming) {
        r.g1->set_sparse_streaming(true);
        if (g2_streamed) r.g2->set_sparse_streaming(true);
    }
    spdlog::info("GPU {}: parameters in host memory ([gpud] params_memory = \"{}\"; {:.2f} GiB of points, {:.1f} "
                 "GiB of device memory free): {} h, {} l, {} a, {} b_g1, {} b_g2 points; {:.2f} GiB of them also kept "
                 "on the device ({} of {} G1 points: l, a, b_g1, then h's; B_G2's {}), the rest streamed to the GPU "
                 "in segments of {} G1 / {} G2 points{}; prepared in {:.2f} s{}",
                 fit.gpu, to_string(fit.placement), double(fit.need) / gib, double(fit.avail) / gib, r.h.size,
                 r.l.size, r.a.size, r.b_g1.size, r.g2 ? r.b_g2.size : 0, double(r.device_point_bytes()) / gib,
                 r.g1_resident, fit.n_g1, !r.g2 ? "on the CPU" : g2_streamed ? "streamed" : "resident", r.segment_g1,
                 r.segment_g2, sparse_note(r, fit), seconds_since(t0), released_note(r));
}

// The points uploaded to the device, G1 queries back to back in one context.
void upload_points(resident_params& r, const groth16::parameters& params, const points_layout& fit,
                   std::chrono::steady_clock::time_point t0) {
    r.g1 = std::make_unique<cuda::g1_msm_context>(fit.gpu, fit.streams);
    r.g1->reserve_points(fit.n_g1);
    r.g1->upload_points_at(r.h.first, params.h);
    r.g1->upload_points_at(r.l.first, params.l);
    r.g1->upload_points_at(r.a.first, params.a);
    r.g1->upload_points_at(r.b_g1.first, params.b_g1);
    if (fit.b_g2_on_gpu) {
        size_t next = 0;
        place(r.b_g2, params.b_g2, next);
        r.g2 = std::make_unique<cuda::g2_msm_context>(fit.gpu, fit.streams);
        r.g2->upload_points(params.b_g2);
    }
    // Each upload is complete on return (msm_context::upload_points_at waits for its copies).
    release_host_copy(r, params.h, "h", fit);
    release_host_copy(r, params.l, "l", fit);
    release_host_copy(r, params.a, "a", fit);
    release_host_copy(r, params.b_g1, "b_g1", fit);
    if (r.g2) release_host_copy(r, params.b_g2, "b_g2", fit);
    spdlog::info("GPU {}: parameters resident ({} h, {} l, {} a, {} b_g1, {} b_g2 points, {:.2f} GiB) in {:.2f} s{}",
                 fit.gpu, r.h.size, r.l.size, r.a.size, r.b_g1.size, r.g2 ? r.b_g2.size : 0, double(r.bytes()) / gib,
                 seconds_since(t0), released_note(r));
}

}  // namespace

size_t cuda_backend::resident_sets() const {
    std::lock_guard lk(mu_);
    return resident_.size();
}

size_t cuda_backend::resident_bytes() const {
    std::lock_guard lk(mu_);
    size_t n = 0;
    for (const auto& [_, r] : resident_) n += r->bytes();
    return n;
}

size_t cuda_backend::resident_matrix_bytes() const {
    std::lock_guard lk(mu_);
    size_t n = 0;
    for (const auto& [_, r] : resident_)
        if (r->matrices) n += r->matrices->device_bytes();
    return n;
}

size_t cuda_backend::host_points_released_bytes() const { return host_points_released_.load(); }

size_t cuda_backend::compact_witness_bytes() const {
    std::lock_guard lk(mu_);
    return compact_witness_ ? compact_witness_->device_bytes() : 0;
}

void cuda_backend::drop_resident(std::map<const groth16::parameters*, std::unique_ptr<resident_params>>::iterator it) {
    // A small set is never dropped under a side run, which may be using it; a big one (whose pages, tens of GB,
    // are restored here) never holds the side lane up.
    std::unique_lock side(side_mu_, std::defer_lock);
    if (it->second->domain_log() <= side_lane_max_log_) side.lock();
    params_pinned_bytes_ -= it->second->host_pinned_bytes();
    host_points_released_ -= it->second->released_bytes();
    {
        std::lock_guard ready(ready_mu_);
        ready_.erase(it->first);
    }
    resident_.erase(it);
    // The compact witness's buffers (z and the scalars: ~5 GB at the 32 GiB shape) go with the last matrices.
    const bool matrices_left =
        std::any_of(resident_.begin(), resident_.end(), [](const auto& e) { return bool(e.second->matrices); });
    if (!matrices_left) compact_witness_.reset();
}

void cuda_backend::forget(const groth16::parameters& params) {
    try {
        std::lock_guard lk(mu_);
        auto it = resident_.find(&params);
        if (it == resident_.end()) return;
        const bool on_host = it->second->on_host();
        const size_t bytes = it->second->bytes();
        const size_t matrix_bytes = it->second->matrices ? it->second->matrices->device_bytes() : 0;
        drop_resident(it);
        spdlog::info("GPU {}: parameters' points freed ({:.2f} GiB {}){}", gpu_, double(bytes) / gib,
                     on_host ? "of page-locked host memory" : "on the device",
                     matrix_bytes ? fmt::format(", and their R1CS matrices ({:.2f} GiB on the device)",
                                                double(matrix_bytes) / gib)
                                  : std::string());
    } catch (const std::exception& e) {
        // Not expected (freeing does not throw); the set stays listed and is dropped when its address is reused.
        spdlog::error("GPU {}: freeing the parameters' points failed: {}", gpu_, e.what());
    }
}

void cuda_backend::stream_whole(resident_params& r) {
    const size_t freed = r.g1_resident * 2 * sizeof(ff::fp_t);
    r.g1->use_host_points(r.host_g1.get(), r.g1->size(), std::max<size_t>(r.segment_g1, 1), 0);
    r.g1_resident = 0;
    r.scratch_planned = false;  // planned again before its next kernels, with the memory it has now
    spdlog::info("GPU {}: the {:.2f} GiB of G1 points a parameter set kept on the device are freed (another big set "
                 "is placed, or the kernels ran out of device memory): all its G1 points stream from host memory "
                 "from now on",
                 gpu_, double(freed) / gib);
}

void cuda_backend::make_resident_before_lock(const groth16::parameters& params, const compact_partition* compact,
                                             unsigned log_m, bool row_a_spare) {
    const bool with_matrices = compact != nullptr;
    {
        std::lock_guard ready(ready_mu_);
        if (auto it = ready_.find(&params); it != ready_.end() && (it->second.with_matrices || !with_matrices))
            return;
    }
    std::lock_guard lk(mu_);
    // A small set's contexts may be in use on the side lane: made resident and planned after its run, not under
    // it. A big set's upload (~12 s at 32 GiB) never holds the side lane up: it touches no small set.
    std::unique_lock side(side_mu_, std::defer_lock);
    if (log_m <= side_lane_max_log_) side.lock();
    ++prepares_making_resident_;
    resident_params& r = resident_for(params, compact, log_m);
    if (!r.scratch_planned) plan_device_memory(r, log_m, row_a_spare);
    std::lock_guard ready(ready_mu_);
    auto& entry = ready_[&params];
    entry.set = &r;
    entry.with_matrices |= with_matrices;
}

cuda_backend::resident_params* cuda_backend::ready_set(const groth16::parameters& params, bool with_matrices) const {
    std::lock_guard ready(ready_mu_);
    const auto it = ready_.find(&params);
    if (it == ready_.end() || (with_matrices && !it->second.with_matrices)) return nullptr;
    return it->second.set;
}

void cuda_backend::preload(const groth16::parameters& params, const r1cs::r1cs_matrices* matrices) {
    const unsigned log_m = r1cs::domain_log(matrices ? matrices->prover_rows() : params.h.size() + 1);
    if (matrices && b_g2_on_gpu_) {
        const compact_partition none{{}, {}, matrices};
        make_resident_before_lock(params, &none, log_m, false);
    } else {
        make_resident_before_lock(params, nullptr, log_m, true);
    }
}

cuda_backend::resident_params& cuda_backend::resident_for(const groth16::parameters& params,
                                                          const compact_partition* compact, unsigned log_m) {
    if (auto it = resident_.find(&params); it != resident_.end()) {
        if (it->second->matches(params)) {
            if (compact) make_matrices_resident(*it->second, *compact, log_m);
            return *it->second;
        }
        drop_resident(it);  // a stale set at this address: free its device memory before the new upload
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto r = std::make_unique<resident_params>();
    // The matrices and the witness's buffers before the points, so that the free memory below counts them.
    if (compact) make_matrices_resident(*r, *compact, log_m);
    points_layout fit;
    fit.gpu = gpu_;
    fit.placement = placement_;
    fit.b_g2_on_gpu = b_g2_on_gpu_;
    fit.release_host_points = release_host_points_;
    fit.sparse_streaming = sparse_streaming_;
    // h last: where the points do not all fit the device, the context's last points are those streamed, and h's
    // MSM (random scalars) hides its copies under its kernels best.
    place(r->l, params.l, fit.n_g1);
    place(r->a, params.a, fit.n_g1);
    place(r->b_g1, params.b_g1, fit.n_g1);
    place(r->h, params.h, fit.n_g1);
    fit.n_g2 = b_g2_on_gpu_ ? params.b_g2.size() : 0;
    fit.g1_max = std::max({r->h.size, r->l.size, r->a.size, r->b_g1.size});
    fit.need = fit.n_g1 * 2 * sizeof(ff::fp_t) + fit.n_g2 * 2 * sizeof(ff::fp2_t);
    fit.avail = cuda::free_device_memory(gpu_);
    fit.log_m = r->domain_log();
    if (fit.log_m <= side_lane_max_log_) fit.streams = cuda::stream_priority::high;
    fit.least_beside = [this, log_m = fit.log_m](size_t g1_run, size_t g2_run) {
        return ntt_still_needed(log_m, ntt_->device_bytes()) + device_reserve +
               cuda::g1_msm_context::scratch_estimate(g1_run, g1_run, 1) +
               (g2_run ? cuda::g2_msm_context::scratch_estimate(g2_run, g2_run, 1) : 0);
    };
    bool on_host = placement_ == params_placement::host;
    if (placement_ == params_placement::automatic || placement_ == params_placement::split) {
        fit.forced_g1_resident = forced_g1_resident_;
        on_host = forced_g1_resident_ || fit.need + fit.least_beside(fit.g1_max, fit.n_g2) > fit.avail;
        // A split fills the device: with another big set resident there is no room for it (two 32 GiB sets'
        // segments, matrices and scratch fill an H100 between them), and a split set gives its device points
        // back before another big set is placed.
        if (on_host && fit.log_m > side_lane_max_log_ && placement_ == params_placement::split) {
            fit.may_split = true;
            for (auto& [other, set] : resident_) {
                if (set->domain_log() <= side_lane_max_log_) continue;
                fit.may_split = false;
                if (set->on_host() && set->g1_resident > 0) stream_whole(*set);
            }
            fit.avail = cuda::free_device_memory(gpu_);
        }
    }
    if (!on_host && fit.need > fit.avail)
        // Resident only ([gpud] params_memory = "device"), and the points alone do not fit: say so in those terms
        // rather than as the CUDA allocation error of an upload.
        throw cuda::cuda_error(fmt::format(
            "GPU {}: the parameters' points need {:.1f} GiB of device memory ({} G1{}), {:.1f} GiB is free: with "
            "[gpud] params_memory = \"device\" the CUDA backend keeps them resident (with their MSM and NTT scratch "
            "on top) and cannot prove this circuit on this GPU; use [gpud] params_memory = \"auto\" or \"host\" "
            "(the points stay in host memory, streamed to the GPU), a GPU with more memory{}, or [gpud] backend = "
            "\"cpu\"",
            gpu_, double(fit.need) / gib, fit.n_g1,
            b_g2_on_gpu_ ? fmt::format(" and {} G2 points", params.b_g2.size()) : std::string(" points"),
            double(fit.avail) / gib,
            b_g2_on_gpu_ ? ", [gpud] b_g2_on_gpu = false (the G2 points stay on the host)" : ""));
    if (on_host)
        stream_points_from_host(*r, params, fit, t0);
    else
        upload_points(*r, params, fit, t0);
    // Entered only once complete: an upload that throws (a full device, say) leaves nothing behind.
    params_pinned_bytes_ += r->host_pinned_bytes();
    host_points_released_ += r->released_bytes();
    return *(resident_[&params] = std::move(r));
}

}  // namespace cuzk::gpud
