#include "gpud/cuda_backend.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <future>

#include "common/msm/msm.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/ntt.hpp"

namespace cuzk::gpud {

// The G1 queries of one parameters object in device memory. The object is known by its address; the
// addresses and sizes of its point vectors are kept too, so a different object later at the same address
// is uploaded afresh rather than proved against stale points.
struct cuda_backend::resident_params {
    struct query {
        const void* host = nullptr;
        size_t size = 0;
        size_t first = 0;  // index of its first point in the context
    };
    query h, l, a, b_g1, b_g2;
    std::unique_ptr<cuda::g1_msm_context> g1;
    std::unique_ptr<cuda::g2_msm_context> g2;  // null when B_G2 runs on the CPU

    template <class P>
    static bool same(const query& q, const std::vector<P>& v) {
        return q.host == v.data() && q.size == v.size();
    }
    bool matches(const groth16::parameters& p) const {
        return same(h, p.h) && same(l, p.l) && same(a, p.a) && same(b_g1, p.b_g1) && (!g2 || same(b_g2, p.b_g2));
    }
    size_t bytes() const {
        return (h.size + l.size + a.size + b_g1.size) * 2 * sizeof(ff::fp_t) +
               (g2 ? b_g2.size * 2 * sizeof(ff::fp2_t) : 0);
    }
};

namespace {

struct cuda_work final : partition_work {
    const groth16::parameters* params = nullptr;
    groth16::prepared_partition prepared;
    groth16::kernel_results kernels;
    bool kernels_done = false;
    ec::g2_jacobian_t b2_acc;  // B_G2 when it ran on the GPU
    // Declared last: destroyed first, so a work dropped without finish() waits for its B_G2 thread
    // before the scalars that thread reads go away.
    std::future<ec::g2_jacobian_t> b_g2;
};

cuda_work& as_cuda(partition_work& w) { return dynamic_cast<cuda_work&>(w); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// sum scalars[i] * points[q.first + i] on the device; the identity for an empty query.
template <class F>
ec::jacobian_t<F> msm(cuda::msm_context<F>& ctx, const cuda_backend::resident_params::query& q,
                      std::span<const ff::fr_t> scalars) {
    if (scalars.empty()) return ec::jacobian_t<F>::identity();
    ctx.upload_scalars(scalars);
    return ctx.run_uploaded_range(q.first, scalars.size());
}

}  // namespace

cuda_backend::cuda_backend(int gpu, bool b_g2_on_gpu) : gpu_(gpu), b_g2_on_gpu_(b_g2_on_gpu) {
    std::string why;
    const int n = cuda::device_count(&why);
    if (gpu < 0 || gpu >= n)
        throw cuda::cuda_error(fmt::format("[gpud] CUDA backend: GPU {} is not usable ({} device(s){}{})", gpu, n,
                                           why.empty() ? "" : ": ", why));
    ntt_ = std::make_unique<cuda::ntt_context>(gpu);
    spdlog::info("CUDA backend on GPU {}: {}; B_G2 on the {}", gpu, cuda::device_description(gpu),
                 b_g2_on_gpu ? "GPU" : "CPU");
}

cuda_backend::~cuda_backend() = default;

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

cuda_backend::resident_params& cuda_backend::resident_for(const groth16::parameters& params) {
    if (auto it = resident_.find(&params); it != resident_.end()) {
        if (it->second->matches(params)) return *it->second;
        resident_.erase(it);  // a stale set at this address: free its device memory before the new upload
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto r = std::make_unique<resident_params>();
    size_t next = 0;
    auto place = [&next](resident_params::query& q, const auto& v) {
        q.host = v.data();
        q.size = v.size();
        q.first = next;
        next += v.size();
    };
    place(r->h, params.h);
    place(r->l, params.l);
    place(r->a, params.a);
    place(r->b_g1, params.b_g1);
    r->g1 = std::make_unique<cuda::g1_msm_context>(gpu_);
    r->g1->reserve_points(next);
    r->g1->upload_points_at(r->h.first, params.h);
    r->g1->upload_points_at(r->l.first, params.l);
    r->g1->upload_points_at(r->a.first, params.a);
    r->g1->upload_points_at(r->b_g1.first, params.b_g1);
    if (b_g2_on_gpu_) {
        next = 0;
        place(r->b_g2, params.b_g2);
        r->g2 = std::make_unique<cuda::g2_msm_context>(gpu_);
        r->g2->upload_points(params.b_g2);
    }
    spdlog::info("GPU {}: parameters resident ({} h, {} l, {} a, {} b_g1, {} b_g2 points, {:.2f} GiB) in {:.2f} s",
                 gpu_, r->h.size, r->l.size, r->a.size, r->b_g1.size, r->g2 ? r->b_g2.size : 0,
                 double(r->bytes()) / double(1ull << 30), seconds_since(t0));
    // Entered only once complete: an upload that throws (a full device, say) leaves nothing behind.
    return *(resident_[&params] = std::move(r));
}

std::unique_ptr<partition_work> cuda_backend::prepare(const groth16::witness_view& w,
                                                      const groth16::parameters& params) {
    auto work = std::make_unique<cuda_work>();
    work->params = &params;
    work->prepared = groth16::prepare_partition(w, params);
    // B_G2 on the CPU: overlapping the wait for the lock and the kernels; it reads only b_scalars and
    // params.b_g2, which nothing else writes.
    if (!b_g2_on_gpu_) {
        const auto* scalars = &work->prepared.b_scalars;
        const auto* points = &params.b_g2;
        work->b_g2 = std::async(std::launch::async, [scalars, points] {
            return msm::multi_exp<ff::fp2_t>(std::span<const ec::g2_affine_t>(*points),
                                             std::span<const ff::fr_t>(*scalars));
        });
    }
    return work;
}

void cuda_backend::run_kernels(partition_work& work) {
    auto& w = as_cuda(work);
    auto& p = w.prepared;
    std::lock_guard lk(mu_);
    resident_params& r = resident_for(*w.params);

    // H: rows to the device, the 7 NTTs there, and the m - 1 coefficients (the top one is zero and has no
    // point) straight from the NTT slot into the H MSM's scalars.
    const size_t m = size_t(1) << p.log_m;
    if (m > 1) {
        ntt_->load(0, p.h);
        ntt_->load(1, p.b);
        ntt_->load(2, p.c);
        std::vector<ff::fr_t>().swap(p.b);
        std::vector<ff::fr_t>().swap(p.c);
        std::vector<ff::fr_t>().swap(p.h);
        ntt_->compute_h_resident(p.log_m);
        ntt_->synchronize();
        r.g1->upload_scalars_device(ntt_->device_data(0), m - 1);
        w.kernels.h_acc = r.g1->run_uploaded_range(r.h.first, m - 1);
    } else {
        // One row: H = (a b - c) / Z has no coefficient with a point.
        std::vector<ff::fr_t>().swap(p.b);
        std::vector<ff::fr_t>().swap(p.c);
        std::vector<ff::fr_t>().swap(p.h);
        w.kernels.h_acc = ec::g1_jacobian_t::identity();
    }
    w.kernels.l_acc = msm(*r.g1, r.l, p.aux);
    w.kernels.a_acc = msm(*r.g1, r.a, p.a_scalars);
    w.kernels.b1_acc = msm(*r.g1, r.b_g1, p.b_scalars);
    if (r.g2) w.b2_acc = msm(*r.g2, r.b_g2, p.b_scalars);
    w.kernels_done = true;
}

groth16::proof cuda_backend::finish(partition_work& work, groth16::rng_fn& rng) {
    auto& w = as_cuda(work);
    if (!w.kernels_done) throw std::logic_error("CUDA backend: finish before run_kernels");
    const ec::g2_jacobian_t b2 = w.b_g2.valid() ? w.b_g2.get() : w.b2_acc;
    return groth16::blind_proof(w.kernels, b2, w.params->vk, rng);
}

}  // namespace cuzk::gpud
