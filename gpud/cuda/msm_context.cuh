// msm_context's members (msm.hpp): the points (uploaded, generated, their window multiples, or in host
// memory), the scalars, and the runs, which msm_run.cuh sequences. Instantiated by msm.cu.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/msm_points.cuh"
#include "gpud/cuda/msm_run.cuh"

namespace cuzk::cuda {

template <class F>
msm_context<F>::msm_context(int device, stream_priority priority) : impl_(std::make_unique<impl>(device, priority)) {}
template <class F>
msm_context<F>::~msm_context() = default;

template <class F>
size_t msm_context<F>::size() const {
    return impl_->n_points;
}

template <class F>
void msm_context<F>::upload_points(std::span<const ec::affine_t<F>> pts) {
    impl_->multiples_c = impl_->multiples_windows = 0;
    impl_->host_points = nullptr;
    impl_->resident = 0;
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->points.reserve(std::max<size_t>(pts.size(), 1));
    impl_->n_points = 0;
    upload_points_at(0, pts);
    impl_->n_points = pts.size();
}

template <class F>
void msm_context<F>::reserve_points(size_t n) {
    impl_->multiples_c = impl_->multiples_windows = 0;
    impl_->host_points = nullptr;
    impl_->resident = 0;
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->points.reserve(std::max<size_t>(n, 1));
    impl_->n_points = n;
}

template <class F>
void msm_context<F>::upload_points_at(size_t first, std::span<const ec::affine_t<F>> pts) {
    using point_t = typename impl::point_t;
    static_assert(sizeof(point_t) == 2 * sizeof(F));
    impl_->check_device_range(first, pts.size());
    impl_->multiples_c = impl_->multiples_windows = 0;  // they were made from the points being replaced
    CUDA_OK(cudaSetDevice(impl_->device));
    // Packed x, y per point; the identity becomes x = y = 0. Staged in pieces of 2^16 points.
    const size_t piece = size_t(1) << 16;
    std::vector<point_t> stage(std::min(pts.size(), piece));
    for (size_t lo = 0; lo < pts.size(); lo += piece) {
        size_t cnt = std::min(piece, pts.size() - lo);
        for (size_t i = 0; i < cnt; ++i) {
            const auto& p = pts[lo + i];
            if (p.infinity) {
                std::memset(static_cast<void*>(&stage[i]), 0, sizeof(point_t));
            } else {
                std::memcpy(static_cast<void*>(&stage[i].x), &p.x, sizeof(F));
                std::memcpy(static_cast<void*>(&stage[i].y), &p.y, sizeof(F));
            }
        }
        // On the context's stream, waited for: a plain cudaMemcpy from pageable memory may return before
        // its DMA lands, and kernels on a non-blocking stream do not wait for it (nor may |stage| be reused).
        CUDA_OK(cudaMemcpyAsync(impl_->points.get() + first + lo, stage.data(), cnt * sizeof(point_t),
                                cudaMemcpyHostToDevice, impl_->stream));
        CUDA_OK(cudaStreamSynchronize(impl_->stream));
    }
}

template <class F>
void msm_context<F>::upload_packed_at(size_t first, const void* packed, size_t count) {
    using point_t = typename impl::point_t;
    impl_->check_device_range(first, count);
    impl_->multiples_c = impl_->multiples_windows = 0;
    CUDA_OK(cudaSetDevice(impl_->device));
    // Waited for, as upload_points_at's copies: |packed| may be pageable, and kernels on a non-blocking stream
    // do not wait for a plain copy.
    CUDA_OK(cudaMemcpyAsync(impl_->points.get() + first, packed, count * sizeof(point_t), cudaMemcpyHostToDevice,
                            impl_->stream));
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
}

template <class F>
void msm_context<F>::generate_points(size_t n, std::span<const ec::affine_t<F>> seeds) {
    using DF = typename impl::DF;
    using point_t = typename impl::point_t;
    const size_t level = size_t(1) << 20;
    const size_t need = 2048 + (n + level - 1) / level;
    if (seeds.size() < need) {
        throw std::invalid_argument("generate_points: " + std::to_string(n) + " points need " + std::to_string(need) +
                                    " seed points, got " + std::to_string(seeds.size()));
    }
    impl_->multiples_c = impl_->multiples_windows = 0;
    impl_->host_points = nullptr;
    impl_->resident = 0;
    msm_context<F> seed_ctx(impl_->device);  // reuses the packing of upload_points
    seed_ctx.upload_points(seeds);
    const point_t* sd = seed_ctx.impl_->points.get();
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->points.reserve(std::max<size_t>(n, 1));
    const size_t n1 = std::min(n, level);
    if (n <= level) {
        pair_sum_kernel<DF><<<grid_for(n1, 128), 128, 0, impl_->stream>>>(sd, 1024, sd + 1024, 1024, n1,
                                                                          impl_->points.get());
        CUDA_LAUNCH_OK("pair_sum_kernel");
    } else {
        device_buffer<point_t> q;
        q.reserve(level);
        pair_sum_kernel<DF><<<grid_for(level, 128), 128, 0, impl_->stream>>>(sd, 1024, sd + 1024, 1024, level, q.get());
        CUDA_LAUNCH_OK("pair_sum_kernel");
        pair_sum_kernel<DF><<<grid_for(n, 128), 128, 0, impl_->stream>>>(q.get(), level, sd + 2048, need - 2048, n,
                                                                         impl_->points.get());
        CUDA_LAUNCH_OK("pair_sum_kernel");
        CUDA_OK(cudaStreamSynchronize(impl_->stream));
    }
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
    impl_->n_points = n;
}

template <class F>
unsigned msm_context<F>::precompute_window_multiples(unsigned c, size_t max_bytes) {
    using DF = typename impl::DF;
    using point_t = typename impl::point_t;
    impl& m = *impl_;
    const size_t n = m.n_points;
    if (m.host_points)
        throw std::invalid_argument("GPU MSM: window multiples need the points on the device, not in host memory");
    if (c == 0) c = choose_multiples_window(n);
    if (c < 2 || c > MAX_MULTIPLES_WINDOW)
        throw std::invalid_argument("GPU MSM: multiples need a window of 2.." + std::to_string(MAX_MULTIPLES_WINDOW) +
                                    " bits, not " + std::to_string(c));
    const unsigned windows = windows_for(c);
    // The sorted values hold a multiple's index in 31 bits (NEG_FLAG is the 32nd), and cub sorts at most
    // 2^31 - 1 items: both bound windows x points.
    if (n == 0 || size_t(windows) * n >= (size_t(1) << 31))
        throw std::invalid_argument("GPU MSM: " + std::to_string(windows) + " window multiples of " +
                                    std::to_string(n) + " points do not fit in 31-bit indices");
    const size_t bytes = size_t(windows) * n * sizeof(point_t);
    if (bytes > max_bytes) return 0;
    CUDA_OK(cudaSetDevice(m.device));
    m.multiples_c = m.multiples_windows = 0;
    CUDA_OK(cudaStreamSynchronize(m.stream));  // no kernel of an earlier run still reads the scratch
    m.release_scratch();
    if (m.points.capacity() > n) {
        // Earlier multiples (or room reserved beyond the points): down to the points alone first, so the peak
        // below is W + 1 copies of them, not that plus the old table.
        device_buffer<point_t> only;
        only.reserve(n);
        CUDA_OK(cudaMemcpyAsync(only.get(), m.points.get(), n * sizeof(point_t), cudaMemcpyDeviceToDevice, m.stream));
        CUDA_OK(cudaStreamSynchronize(m.stream));
        m.points.swap(only);
    }
    // A new buffer for all the windows, the points copied in as window 0, then each window from the one
    // before. The old buffer goes only once the new one is complete: a failure leaves the points as they were.
    device_buffer<point_t> table;
    table.reserve(size_t(windows) * n);
    CUDA_OK(cudaMemcpyAsync(table.get(), m.points.get(), n * sizeof(point_t), cudaMemcpyDeviceToDevice, m.stream));
    for (unsigned w = 1; w < windows; ++w) {
        window_multiples_kernel<DF><<<grid_for((n + MULTIPLES_GROUP - 1) / MULTIPLES_GROUP, 64), 64, 0, m.stream>>>(
            table.get() + size_t(w - 1) * n, table.get() + size_t(w) * n, n, c);
        CUDA_LAUNCH_OK("window_multiples_kernel");
    }
    CUDA_OK(cudaStreamSynchronize(m.stream));
    m.points.swap(table);
    m.multiples_c = c;
    m.multiples_windows = windows;
    return c;
}

template <class F>
unsigned msm_context<F>::multiples_window() const {
    return impl_->multiples_c;
}

template <class F>
void msm_context<F>::pack_points(std::span<const ec::affine_t<F>> pts, void* out) {
    using point_t = typename impl::point_t;
    auto* dst = static_cast<std::byte*>(out);
    for (size_t i = 0; i < pts.size(); ++i, dst += sizeof(point_t)) {
        if (pts[i].infinity) {
            std::memset(dst, 0, sizeof(point_t));
        } else {
            std::memcpy(dst, &pts[i].x, sizeof(F));
            std::memcpy(dst + sizeof(F), &pts[i].y, sizeof(F));
        }
    }
}

template <class F>
void msm_context<F>::download_points_packed(void* out) const {
    using point_t = typename impl::point_t;
    if (impl_->host_points) throw std::invalid_argument("GPU MSM: the points are in host memory already");
    CUDA_OK(cudaSetDevice(impl_->device));
    CUDA_OK(cudaMemcpy(out, impl_->points.get(), impl_->n_points * sizeof(point_t), cudaMemcpyDeviceToHost));
}

template <class F>
void msm_context<F>::use_host_points(const void* packed, size_t n, size_t segment, size_t resident) {
    using point_t = typename impl::point_t;
    if (segment == 0) throw std::invalid_argument("GPU MSM: host points need a segment of at least one point");
    if (resident > n)
        throw std::invalid_argument("GPU MSM: " + std::to_string(resident) + " resident points of only " +
                                    std::to_string(n));
    impl& m = *impl_;
    CUDA_OK(cudaSetDevice(m.device));
    CUDA_OK(cudaStreamSynchronize(m.stream));
    m.multiples_c = m.multiples_windows = 0;
    // The device copy goes: the resident points (written afterwards) and the two segment buffers take its place.
    m.points.release();
    m.host_points = nullptr;
    m.resident = 0;
    m.points.reserve(resident + 2 * segment);
    m.prefetched_count = 0;
    m.host_points = static_cast<const point_t*>(packed);
    m.host_points_mapped = impl::mapped_address(m.host_points);
    m.resident = resident;
    m.segment = segment;
    m.n_points = n;
}

template <class F>
void msm_context<F>::set_sparse_streaming(bool on) {
    impl& m = *impl_;
    m.sparse_streaming = on;
    // The copy may have been page-locked (and mapped) after use_host_points, as the backend does once it is written.
    if (on && m.host_points) {
        CUDA_OK(cudaSetDevice(m.device));
        m.host_points_mapped = impl::mapped_address(m.host_points);
    }
}

template <class F>
msm_stream_totals msm_context<F>::streamed_totals() const {
    return impl_->totals;
}

template <class F>
bool msm_context<F>::sparse_streaming_available() const {
    return impl_->host_points != nullptr && impl_->host_points_mapped != nullptr;
}

template <class F>
void msm_context<F>::prefetch_range(size_t first_point, size_t n) {
    impl_->prefetch(first_point, n);
}

template <class F>
bool msm_context<F>::host_points() const {
    return impl_->host_points != nullptr;
}

template <class F>
size_t msm_context<F>::resident_points() const {
    return impl_->host_points ? impl_->resident : impl_->n_points;
}

template <class F>
void msm_context<F>::set_scratch_limit(size_t bytes) {
    impl_->scratch_limit = bytes;
}

template <class F>
void msm_context<F>::release_scratch() {
    CUDA_OK(cudaSetDevice(impl_->device));
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
    impl_->release_scratch();
}

template <class F>
size_t msm_context<F>::scratch_estimate(size_t n, size_t m, unsigned windows_per_pass) {
    if (m == 0) return impl::fixed_scratch(n, 0);
    const unsigned c = choose_window(impl::is_g1, m), windows = windows_for(c);
    // The windows of one width go through a pass together: without a limit, a pass holds the larger group.
    const window_split split = window_split::for_run(c, false);
    const unsigned widest_pass = split.wide == windows ? windows : std::max(split.wide, windows - split.wide);
    const unsigned per_pass = windows_per_pass == 0 ? widest_pass : std::min(windows_per_pass, widest_pass);
    const size_t rest = impl::fixed_scratch(n, m) + per_pass * impl::window_scratch(m, c);
    // The batch-affine rounds' two scratch sets, where the run takes them by default (G2; G1 with long runs
    // per bucket, as the H query's random scalars): at their default size without a limit; under one they
    // take what the pass leaves of it, at least an eighth (launch_accumulate), so a limit x covers rest + x / 8
    // from x = 8 rest / 7. The widest pass counts as no limit (the most the sets take).
    if (!impl::affine_by_default(size_t(per_pass) * m, size_t(per_pass) << (c - 1))) return rest;
    return per_pass == widest_pass ? rest + 2 * BATCH_AFFINE_BYTES : rest + rest / 7;
}

template <class F>
size_t msm_context<F>::scratch_bytes() const {
    size_t b = impl_->scalars.capacity() * sizeof(fr_t);
    impl_->for_each_scratch([&b](const auto& buf) { b += buf.bytes(); });
    return b;
}

template <class F>
std::vector<ec::affine_t<F>> msm_context<F>::download_points() const {
    using point_t = typename impl::point_t;
    CUDA_OK(cudaSetDevice(impl_->device));
    std::vector<point_t> raw(impl_->n_points);
    const size_t on_device = resident_points();
    if (on_device > 0)
        CUDA_OK(cudaMemcpy(raw.data(), impl_->points.get(), on_device * sizeof(point_t), cudaMemcpyDeviceToHost));
    if (impl_->host_points)
        std::memcpy(static_cast<void*>(raw.data() + on_device), impl_->host_points,
                    (raw.size() - on_device) * sizeof(point_t));
    std::vector<ec::affine_t<F>> out(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        // The device identity is x = y = 0 (curve.cuh); compared by bytes so no field code runs here.
        static const point_t zero{};
        if (std::memcmp(&raw[i], &zero, sizeof(point_t)) == 0) continue;
        std::memcpy(static_cast<void*>(&out[i].x), &raw[i].x, sizeof(F));
        std::memcpy(static_cast<void*>(&out[i].y), &raw[i].y, sizeof(F));
        out[i].infinity = false;
    }
    return out;
}

template <class F>
void msm_context<F>::upload_scalars(std::span<const ff::fr_t> sc) {
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->scalars.reserve(std::max<size_t>(sc.size(), 1));
    // Ordered with the MSM kernels on the context's stream and complete on return (see upload_points_at).
    CUDA_OK(cudaMemcpyAsync(impl_->scalars.get(), sc.data(), sc.size() * sizeof(ff::fr_t), cudaMemcpyHostToDevice,
                            impl_->stream));
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
    impl_->n_scalars = sc.size();
    impl_->external_scalars = nullptr;
}

template <class F>
void msm_context<F>::upload_scalars_device(const ff::fr_t* dev, size_t n) {
    CUDA_OK(cudaSetDevice(impl_->device));
    impl_->scalars.reserve(std::max<size_t>(n, 1));
    CUDA_OK(cudaMemcpyAsync(impl_->scalars.get(), dev, n * sizeof(ff::fr_t), cudaMemcpyDeviceToDevice, impl_->stream));
    CUDA_OK(cudaStreamSynchronize(impl_->stream));
    impl_->n_scalars = n;
    impl_->external_scalars = nullptr;
}

template <class F>
void msm_context<F>::use_scalars_device(const ff::fr_t* dev, size_t n) {
    if (n > 0 && dev == nullptr) throw std::invalid_argument("GPU MSM: no device scalars to use");
    impl_->external_scalars = reinterpret_cast<const fr_t*>(dev);
    impl_->n_scalars = n;
}

template <class F>
const ff::fr_t* msm_context<F>::scalars_device() const {
    return reinterpret_cast<const ff::fr_t*>(impl_->run_scalars());
}

template <class F>
ec::jacobian_t<F> msm_context<F>::run_uploaded(size_t n, msm_report* report, const msm_options& opt) {
    return impl_->run(n, report, opt);
}

template <class F>
ec::jacobian_t<F> msm_context<F>::run_uploaded_range(size_t first_point, size_t n, msm_report* report,
                                                     const msm_options& opt) {
    struct reset {
        size_t& b;
        ~reset() { b = 0; }
    } r{impl_->base};
    impl_->base = first_point;
    return impl_->run(n, report, opt);
}

template <class F>
std::vector<ec::jacobian_t<F>> msm_context<F>::run_uploaded_ranges(std::span<const size_t> first_points, size_t n,
                                                                   msm_report* report, const msm_options& opt) {
    return impl_->run_many(first_points, n, report, opt);
}

template <class F>
ec::jacobian_t<F> msm_context<F>::run(std::span<const ff::fr_t> sc, msm_report* report, const msm_options& opt) {
    if (sc.size() > impl_->n_points) {
        throw std::invalid_argument("GPU MSM: " + std::to_string(sc.size()) + " scalars but only " +
                                    std::to_string(impl_->n_points) + " resident points");
    }
    upload_scalars(sc);
    return impl_->run(sc.size(), report, opt);
}

}  // namespace cuzk::cuda
