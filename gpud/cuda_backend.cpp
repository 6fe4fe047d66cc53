#include "gpud/cuda_backend.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <future>
#include <new>
#include <span>
#include <thread>

#include "common/msm/msm.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/host_pin.hpp"
#include "gpud/cuda/pinned_pool.hpp"
#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/ntt.hpp"
#include "gpud/prestage_board.hpp"
#include "gpud/scratch_plan.hpp"

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
    bool scratch_planned = false;  // plan_msm_scratch applied (before the first kernels on these points)
    // The serial of the work whose B_G2 scalars the G2 context holds, copied there under an earlier
    // partition's kernels (cuda_backend::b_g2_board), or 0 (none, or not known to be anyone's).
    uint64_t g2_scalars_of = 0;
    // With the points in host memory (params_placement::host): their packed copies, page-locked, and the
    // segment (points per streamed copy) of each context. Declared before the pins and the contexts, which
    // read them: destroyed after both.
    std::unique_ptr<std::byte[]> host_g1, host_g2;
    cuda::host_pin pin_g1, pin_g2;
    size_t segment_g1 = 0, segment_g2 = 0;
    bool on_host() const { return host_g1 != nullptr; }
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

// Counters of the host ranges pinned for copies (cuda_backend::pin_stats), shared by the backend and its works.
struct cuda_backend::pin_counters {
    std::atomic<uint64_t> pinned_ranges{0}, pinned_bytes{0}, pageable_ranges{0}, pageable_bytes{0};
    std::atomic<uint64_t> refused_ranges{0}, unpin_failures{0}, pinned_now_bytes{0};
    std::atomic<uint64_t> pooled_ranges{0}, pooled_bytes{0};
    std::atomic<uint64_t> pin_ns{0}, unpin_ns{0};
    std::atomic<bool> warned_refusal{false}, announced{false};
};

namespace {

using pin_counters = cuda_backend::pin_counters;

uint64_t ns_since(std::chrono::steady_clock::time_point t0) {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
}

struct cuda_work;
}  // namespace

// Partitions waiting for the lock offer their B_G2 scalars to the holder's B_G2 thread (prestage_board.hpp).
// The holder's B_G2 thread also copies the taken partition's row a into the NTT context's spare slot, where
// there is one (cuda_backend::spare_row_a_of_).
struct cuda_backend::b_g2_board : prestage_board<cuda_work, groth16::parameters> {
    std::atomic<uint64_t> copied{0}, used{0};
    std::atomic<uint64_t> row_a_copied{0}, row_a_used{0};
    std::atomic<bool> announced{false}, row_a_announced{false};
};

namespace {

struct cuda_work final : partition_work {
    // The host ranges the kernels copy from, in the order the kernels copy them.
    enum range { row_a, row_b, row_c, aux, a_scalars, b_scalars, ranges };
    static constexpr const char* range_names[ranges] = {"row a", "row b", "row c", "aux (L scalars)", "A scalars",
                                                         "B scalars"};

    explicit cuda_work(std::shared_ptr<cuda::pinned_pool> pool)
        : scalar_pool(std::move(pool)),
          prepared(scalar_pool ? static_cast<std::pmr::memory_resource*>(scalar_pool.get())
                               : std::pmr::get_default_resource()) {}

    const groth16::parameters* params = nullptr;
    // Where the A and B scalar vectors live (page-locked buffers reused across partitions), or null; declared
    // before |prepared| so it outlives the vectors it holds.
    std::shared_ptr<cuda::pinned_pool> scalar_pool;
    // Without rows (prepare_partition_without_rows): the kernels copy rows a, b, c from the witness, where
    // they are (the ring slot in gpud), padded with zeros on the device.
    groth16::prepared_partition prepared;
    std::span<const ff::fr_t> rows[3];
    // Rows a, b, c, the inputs and aux back to back in memory (as in a ring slot), or empty: then one
    // registration covers them all (separate ones would overlap at the pages they share and be refused).
    std::span<const ff::fr_t> witness_block;
    // Page locks on the ranges of |prepared| (and on the witness's aux, which it borrows). Declared after
    // |prepared|, so even the implicit member destruction unregisters them before its vectors are freed;
    // release_host does it explicitly.
    cuda::host_pin pins[ranges];
    std::shared_ptr<pin_counters> counters;
    groth16::kernel_results kernels;
    bool kernels_done = false;
    ec::g2_jacobian_t b2_acc;  // B_G2 when it ran on the GPU
    uint64_t serial = 0;       // unique in its backend (resident_params::g2_scalars_of), from 1
    // The board its B_G2 scalars were offered on, or null; withdrawn from it before they are freed.
    std::shared_ptr<cuda_backend::b_g2_board> board;
    // Declared last: destroyed first, so a work dropped without finish() waits for its B_G2 thread
    // before the scalars that thread reads go away (the destructor also waits for it explicitly).
    std::future<ec::g2_jacobian_t> b_g2;

    ~cuda_work() override {
        if (b_g2.valid()) b_g2.wait();
        if (board) board->withdraw(this);  // waits while a holder's thread copies from b_scalars
        release_host();
    }

    std::span<const ff::fr_t> host_range(int i) const {
        switch (i) {
            case row_a: return rows[0];
            case row_b: return rows[1];
            case row_c: return rows[2];
            case aux: return prepared.aux;
            case a_scalars: return prepared.a_scalars;
            case b_scalars: return prepared.b_scalars;
            default: return {};
        }
    }
    // The vector behind a range, or null for the witness's rows and aux (not ours to free).
    groth16::scalar_buffer* owned(int i) {
        switch (i) {
            case a_scalars: return &prepared.a_scalars;
            case b_scalars: return &prepared.b_scalars;
            default: return nullptr;
        }
    }

    // Unpins every range, then (all unpinned) frees the rows and scalars; the B_G2 thread, if any, must be done.
    // A vector whose range could not be unpinned is leaked rather than freed: freed, its address range could be
    // handed out again by the allocator while the driver still holds it registered. Never throws.
    void release_host() noexcept {
        bool leak[ranges] = {};
        for (int i = 0; i < ranges; ++i) {
            if (!pins[i].pinned()) continue;
            const auto t0 = std::chrono::steady_clock::now();
            const uint64_t bytes = pins[i].bytes();
            try {
                pins[i].unpin();
            } catch (const std::exception& e) {
                leak[i] = true;
                if (counters) ++counters->unpin_failures;
                try {
                    spdlog::warn("CUDA backend: {} ({} bytes) could not be unpinned: {}; its memory is {}",
                                 range_names[i], bytes, e.what(),
                                 owned(i) ? "leaked, not freed" : "the witness's (its owner frees it)");
                } catch (...) {
                }
            }
            if (counters) {
                counters->pinned_now_bytes -= bytes;
                counters->unpin_ns += ns_since(t0);
            }
        }
        for (int i = 0; i < ranges; ++i) {
            auto* v = owned(i);
            if (!v) continue;
            if (leak[i])
                v->leak();  // deliberately never given back (see above)
            else
                v->release();  // back to the pool, if pooled
        }
    }
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

namespace {
// Device memory kept out of every plan: the CUDA runtime's own, cub's temporaries, rounding.
constexpr size_t device_reserve = size_t(1) << 30;
// What the NTT context still has to allocate for H at 2^log_m (0 with one row: no H), beyond the |ntt_held| it has.
size_t ntt_still_needed(unsigned log_m, size_t ntt_held) {
    const size_t need = log_m > 0 ? cuda::ntt_context::device_bytes_for(log_m) : 0;
    return need > ntt_held ? need - ntt_held : 0;
}
}  // namespace

scratch_plan plan_msm_scratch(int gpu, size_t g1_points, size_t g2_points, unsigned log_m, size_t held_scratch,
                              size_t ntt_held) {
    const size_t ntt_more = ntt_still_needed(log_m, ntt_held);
    const size_t have = cuda::free_device_memory(gpu) + held_scratch;
    const size_t available = have > ntt_more + device_reserve ? have - ntt_more - device_reserve : 0;
    scratch_demand g1{cuda::g1_msm_context::scratch_estimate(g1_points, g1_points),
                      cuda::g1_msm_context::scratch_estimate(g1_points, g1_points, 1)};
    scratch_demand g2;
    if (g2_points > 0)
        g2 = {cuda::g2_msm_context::scratch_estimate(g2_points, g2_points),
              cuda::g2_msm_context::scratch_estimate(g2_points, g2_points, 1)};
    return plan_scratch(available, g1, g2);
}

cuda_backend::cuda_backend(int gpu, bool b_g2_on_gpu, size_t pin_min_bytes, size_t scalar_cache_bytes,
                           params_placement placement)
    : gpu_(gpu),
      b_g2_on_gpu_(b_g2_on_gpu),
      placement_(placement),
      pin_min_bytes_(pin_min_bytes),
      pins_(std::make_shared<pin_counters>()) {
    std::string why;
    const int n = cuda::device_count(&why);
    if (gpu < 0 || gpu >= n)
        throw cuda::cuda_error(fmt::format("[gpud] CUDA backend: GPU {} is not usable ({} device(s){}{})", gpu, n,
                                           why.empty() ? "" : ": ", why));
    ntt_ = std::make_unique<cuda::ntt_context>(gpu);
    if (b_g2_on_gpu) b_g2_board_ = std::make_shared<b_g2_board>();
    if (pin_min_bytes != SIZE_MAX)
        scalar_pool_ = std::make_shared<cuda::pinned_pool>(gpu, pin_min_bytes, scalar_cache_bytes);
    spdlog::info("CUDA backend on GPU {}: {}; B_G2 on the {}; parameters' points on the {}; host ranges of {} pinned "
                 "for copies{}",
                 gpu, cuda::device_description(gpu), b_g2_on_gpu ? "GPU" : "CPU",
                 placement == params_placement::device ? "device"
                 : placement == params_placement::host ? "host (streamed)"
                                                       : "device where they fit, else the host",
                 pin_min_bytes == SIZE_MAX ? std::string("no size")
                                           : fmt::format("{} bytes and more", pin_min_bytes),
                 scalar_pool_ ? fmt::format(", A/B scalars in reused page-locked buffers (up to {:.1f} GiB cached)",
                                            double(scalar_cache_bytes) / double(1ull << 30))
                              : std::string());
}

cuda_backend::~cuda_backend() = default;

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

// Not under |mu_|: the worker asking failed outside the kernels or has left them, and a worker inside them
// must not delay the answer beyond the device's own queue (cudaDeviceSynchronize waits for it).
std::string cuda_backend::device_lost() { return cuda::context_error(gpu_); }

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
            {"l_a_msm_shared", l_a_shared_.load()}};
}

cuda_backend::b_g2_prestage_stats cuda_backend::b_g2_prestage() const {
    if (!b_g2_board_) return {};
    return {b_g2_board_->copied, b_g2_board_->used, b_g2_board_->row_a_copied, b_g2_board_->row_a_used};
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
    const size_t n_g2 = b_g2_on_gpu_ ? params.b_g2.size() : 0;
    const size_t g1_max = std::max({r->h.size, r->l.size, r->a.size, r->b_g1.size});
    const size_t need = next * 2 * sizeof(ff::fp_t) + n_g2 * 2 * sizeof(ff::fp2_t);
    const size_t avail = cuda::free_device_memory(gpu_);
    // What the kernels take beside the points at the least: the NTTs at the domain the h query implies, one
    // window per MSM pass, and a reserve (the CUDA runtime's own, rounding).
    unsigned log_m = 0;
    while ((size_t(1) << log_m) < r->h.size + 1) ++log_m;
    auto least_beside = [&](size_t g1_run, size_t g2_run) {
        return ntt_still_needed(log_m, ntt_->device_bytes()) + device_reserve +
               cuda::g1_msm_context::scratch_estimate(g1_run, g1_run, 1) +
               (g2_run ? cuda::g2_msm_context::scratch_estimate(g2_run, g2_run, 1) : 0);
    };
    const double gib = double(1ull << 30);
    bool on_host = placement_ == params_placement::host;
    if (placement_ == params_placement::automatic) on_host = need + least_beside(g1_max, n_g2) > avail;
    if (!on_host && need > avail)
        // Resident only ([gpud] params_memory = "device"), and the points alone do not fit: say so in those terms
        // rather than as the CUDA allocation error of an upload.
        throw cuda::cuda_error(fmt::format(
            "GPU {}: the parameters' points need {:.1f} GiB of device memory ({} G1{}), {:.1f} GiB is free: with "
            "[gpud] params_memory = \"device\" the CUDA backend keeps them resident (with their MSM and NTT scratch "
            "on top) and cannot prove this circuit on this GPU; use [gpud] params_memory = \"auto\" or \"host\" "
            "(the points stay in host memory, streamed to the GPU), a GPU with more memory{}, or [gpud] backend = "
            "\"cpu\"",
            gpu_, double(need) / gib, next,
            b_g2_on_gpu_ ? fmt::format(" and {} G2 points", params.b_g2.size()) : std::string(" points"),
            double(avail) / gib, b_g2_on_gpu_ ? ", [gpud] b_g2_on_gpu = false (the G2 points stay on the host)" : ""));
    if (on_host) {
        // Segments of 2^25 G1 and 2^24 G2 points (two buffers each: 6.4 GB apiece), halved while they and the
        // least scratch for runs of that size do not fit (choose_segments).
        auto device_need = [&](size_t s1, size_t s2) {
            return 2 * s1 * 2 * sizeof(ff::fp_t) + 2 * s2 * 2 * sizeof(ff::fp2_t) + least_beside(s1, s2);
        };
        const stream_segments seg = choose_segments(g1_max, n_g2, avail, device_need);
        if (!seg.fits)
            throw cuda::cuda_error(fmt::format(
                "GPU {}: {:.1f} GiB of device memory is free, and even with the parameters' points in host memory "
                "the NTTs at 2^{} and the MSMs' least scratch need {:.1f} GiB: this GPU cannot prove this circuit; "
                "use a GPU with more memory{}, or [gpud] backend = \"cpu\"",
                gpu_, double(avail) / gib, log_m, double(device_need(seg.g1, seg.g2)) / gib,
                b_g2_on_gpu_ ? ", [gpud] b_g2_on_gpu = false" : ""));
        r->segment_g1 = seg.g1;
        r->segment_g2 = seg.g2;
        // Packed into page-locked host memory by a few threads (39 GiB of G1 points at 32 GiB: a memory copy
        // per point), then each context streams its segments from there.
        auto pack = [](auto tag, const auto& queries, std::byte* out) {
            using F = decltype(tag);
            std::vector<std::thread> threads;
            size_t at = 0;
            for (const auto* q : queries) {
                const size_t n = q->size(), per = std::max<size_t>(1, (n + 7) / 8);
                for (size_t lo = 0; lo < n; lo += per) {
                    const auto part = std::span<const ec::affine_t<F>>(q->data() + lo, std::min(per, n - lo));
                    threads.emplace_back([part, dst = out + (at + lo) * 2 * sizeof(F)] {
                        cuda::msm_context<F>::pack_points(part, dst);
                    });
                }
                at += n;
            }
            for (auto& t : threads) t.join();
        };
        // The host copy is as large as the points (47 GiB at 32 GiB): a host without room gets a message in those
        // terms (retryable: memory other work holds may come free), not a bare std::bad_alloc.
        auto host_bytes = [&](size_t bytes) {
            try {
                return std::unique_ptr<std::byte[]>(new std::byte[std::max<size_t>(bytes, 1)]);
            } catch (const std::bad_alloc&) {
                throw cuda::cuda_error(fmt::format(
                    "GPU {}: the host copy of the parameters' points ({:.1f} GiB; [gpud] params_memory = \"{}\", "
                    "{:.1f} GiB of device memory free for {:.1f} GiB of points) could not be allocated: add host "
                    "memory, or use a GPU with room for the points",
                    gpu_, double(bytes) / gib, to_string(placement_), double(avail) / gib, double(need) / gib));
            }
        };
        r->host_g1 = host_bytes(next * 2 * sizeof(ff::fp_t));
        pack(ff::fp_t{}, std::array{&params.h, &params.l, &params.a, &params.b_g1}, r->host_g1.get());
        r->pin_g1 = cuda::host_pin(gpu_, r->host_g1.get(), next * 2 * sizeof(ff::fp_t));
        r->g1 = std::make_unique<cuda::g1_msm_context>(gpu_);
        r->g1->use_host_points(r->host_g1.get(), next, std::max<size_t>(r->segment_g1, 1));
        if (b_g2_on_gpu_) {
            next = 0;
            place(r->b_g2, params.b_g2);
            r->host_g2 = host_bytes(n_g2 * 2 * sizeof(ff::fp2_t));
            pack(ff::fp2_t{}, std::array{&params.b_g2}, r->host_g2.get());
            r->pin_g2 = cuda::host_pin(gpu_, r->host_g2.get(), n_g2 * 2 * sizeof(ff::fp2_t));
            r->g2 = std::make_unique<cuda::g2_msm_context>(gpu_);
            r->g2->use_host_points(r->host_g2.get(), n_g2, std::max<size_t>(r->segment_g2, 1));
        }
        const bool pinned = r->pin_g1.pinned() && (!r->g2 || r->pin_g2.pinned());
        if (!pinned)
            spdlog::warn("GPU {}: the parameters' host copy could not be page-locked ({}): its segments are copied "
                         "from pageable memory, slower",
                         gpu_, !r->pin_g1.pinned() ? r->pin_g1.error() : r->pin_g2.error());
        spdlog::info("GPU {}: parameters in host memory ([gpud] params_memory = \"{}\"; {:.2f} GiB of points, {:.1f} "
                     "GiB of device memory free): {} h, {} l, {} a, {} b_g1, {} b_g2 points, streamed to the GPU in "
                     "segments of {} G1 / {} G2 points, prepared in {:.2f} s",
                     gpu_, to_string(placement_), double(need) / gib, double(avail) / gib, r->h.size, r->l.size,
                     r->a.size, r->b_g1.size, r->g2 ? r->b_g2.size : 0, r->segment_g1, r->segment_g2,
                     seconds_since(t0));
        return *(resident_[&params] = std::move(r));
    }
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
    auto work = std::make_unique<cuda_work>(scalar_pool_);
    work->serial = next_serial_++;
    work->params = &params;
    work->counters = pins_;
    // A's aux scalars are left in the witness's aux where A uses them all (run_kernels runs L and A over them).
    groth16::prepare_partition_without_rows(w, params, work->prepared, nullptr,
                                            groth16::a_aux_storage::in_aux_when_dense);
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
    if (b_g2_board_ && !work->prepared.b_scalars.empty()) {
        work->board = b_g2_board_;
        b_g2_board_->offer(work.get(), &params);
    }
    return work;
}

// CPU, outside the CUDA lock: page-locks the ranges run_kernels copies from. No vector of |work.prepared| is
// resized or moved from here until release_host has unpinned it.
void cuda_backend::pin_host_ranges(partition_work& work) {
    auto& w = as_cuda(work);
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

void cuda_backend::run_kernels(partition_work& work) {
    auto& w = as_cuda(work);
    auto& p = w.prepared;
    std::lock_guard lk(mu_);
    resident_params& r = resident_for(*w.params);
    if (!r.scratch_planned) {
        // The largest run of each context: a whole query resident, a segment streamed.
        const size_t g1_max = r.on_host() ? r.segment_g1 : std::max({r.h.size, r.l.size, r.a.size, r.b_g1.size});
        const size_t g2_max = !r.g2 ? 0 : r.on_host() ? r.segment_g2 : r.b_g2.size;
        const size_t held = r.g1->scratch_bytes() + (r.g2 ? r.g2->scratch_bytes() : 0);
        scratch_plan plan = plan_msm_scratch(gpu_, g1_max, g2_max, p.log_m, held, ntt_->device_bytes());
        // The spare NTT slot for the waiting partition's row a (run_kernels; 4 GiB at 2^27), where the B_G2
        // thread can copy it and the G1 MSMs still keep every window in one pass beside it: an extra pass of
        // the H MSM would cost more than the ~25 ms the spare saves.
        const size_t spare_need = size_t(1) << p.log_m;
        if (b_g2_board_ && r.g2 && !r.on_host() && p.log_m > 0 && ntt_->spare_capacity() < spare_need &&
            plan.fits && plan.g1_limit == 0) {
            // A row a staged for a partition of other parameters is lost when the spare is reallocated: that
            // partition copies its own (no B_G2 thread of this partition runs yet to stage another).
            spare_row_a_of_ = 0;
            try {
                ntt_->reserve_spare(p.log_m);
                const scratch_plan with_spare =
                    plan_msm_scratch(gpu_, g1_max, g2_max, p.log_m, held, ntt_->device_bytes());
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
        if (plan.fits)
            spdlog::info("GPU {}: {}", gpu_, plan.summary());
        else
            spdlog::warn("GPU {}: {}", gpu_, plan.summary());
    }

    // B_G2 from a second host thread, beside the G1 work: its own context and stream, so its kernels fill
    // the SMs the NTTs and G1 MSMs leave idle (their tails, the host-side waits between them). On an H200 the
    // 32 GiB-shape partition's GPU work with its uploads took 1,754 ms this way against 1,830 one after the
    // other (BENCHMARKS.md, sixth session). |b_g2_done| waits for the thread on every way out, exceptions included, so no kernel of
    // this partition outlives the lock.
    //
    // Its scalars are copied first, before the rows, and alone on the bus: nothing can run until some input
    // has landed, and B_G2's is the smallest copy that unlocks the most kernels (32 GiB shape on an H200:
    // ~26 ms of copy, ~110 ms of MSM, under which row a's ~79 ms copy lands). Queued from the B_G2 thread
    // beside the rows' copies instead, it landed after all three rows (~259 ms), and the GPU idled until row
    // a was in (BENCHMARKS.md, sixteenth session).
    //
    // Then the same thread copies the B_G2 scalars of a partition waiting for the lock (b_g2_board), from
    // the moment the H transforms are done (the rows have landed; the copy shares the bus only with the L,
    // A and B_G1 scalars' copies into the NTT slots, which end long before the H MSM does) to the end of
    // the kernels (a copy taken as they end may outlast them by up to its length, which the waiting
    // partition then does not spend). On an H200 it saves that partition the ~26 ms copy at the start of its
    // lock (32 GiB shape; BENCHMARKS.md, seventeenth session).
    if (w.board) w.board->withdraw(&w);  // taken or not, nobody copies it now: its kernels run
    std::future<ec::g2_jacobian_t> b_g2;
    struct join_on_exit {
        std::future<ec::g2_jacobian_t>& f;
        ~join_on_exit() {
            if (f.valid()) f.wait();
        }
    } b_g2_done{b_g2};
    // Destroyed before |b_g2_done| waits: a B_G2 thread waiting for an offer is let go on every way out.
    struct close_on_exit {
        b_g2_board* board;
        ~close_on_exit() {
            if (board) board->close();
        }
    } window{b_g2_board_.get()};
    if (window.board) window.board->begin();
    if (r.g2 && !p.b_scalars.empty()) {
        if (r.g2_scalars_of == w.serial) {
            ++b_g2_board_->used;
            if (!b_g2_board_->announced.exchange(true))
                spdlog::info("GPU {}: B_G2's scalars were copied under the previous partition's kernels, so this "
                             "partition's B_G2 MSM starts at once under the lock",
                             gpu_);
        } else {
            r.g2_scalars_of = 0;  // no longer anyone's once overwritten, even by a copy that fails
            r.g2->upload_scalars(p.b_scalars);
        }
        r.g2_scalars_of = 0;  // this partition's, consumed
        b_g2 = std::async(std::launch::async, [this, &r, &p, board = b_g2_board_.get(), params = w.params] {
            const auto acc = r.g2->run_uploaded_range(r.b_g2.first, p.b_scalars.size());
            if (cuda_work* next = board->take(params)) {
                struct done_on_exit {
                    b_g2_board* board;
                    ~done_on_exit() { board->done(); }
                } taken{board};
                // A failed copy does not fail this partition, whose B_G2 is done: the next one copies its own
                // scalars under its lock, as without the board (and meets the error itself if it persists).
                try {
                    r.g2->upload_scalars(next->prepared.b_scalars);
                    r.g2_scalars_of = next->serial;
                    ++board->copied;
                } catch (const std::exception& e) {
                    spdlog::warn("CUDA backend: copying the B_G2 scalars of the partition waiting for the lock "
                                 "failed ({}); it copies them under its own lock",
                                 e.what());
                }
                // Then its row a into the spare NTT slot (after the scalars: B_G2's MSM is the first thing its
                // kernels run; the row is needed only after the rows' copies have been queued).
                const unsigned next_log_m = next->prepared.log_m;
                if (next_log_m > 0 && ntt_->spare_capacity() >= (size_t(1) << next_log_m)) {
                    try {
                        spare_row_a_of_ = 0;  // no longer anyone's once overwritten, even by a copy that fails
                        ntt_->fill_spare(next->rows[0], next_log_m);
                        spare_row_a_of_ = next->serial;
                        ++board->row_a_copied;
                    } catch (const std::exception& e) {
                        spdlog::warn("CUDA backend: copying row a of the partition waiting for the lock failed ({}); "
                                     "it copies it under its own lock",
                                     e.what());
                    }
                }
            }
            return acc;
        });
    } else if (r.g2) {
        w.b2_acc = ec::g2_jacobian_t::identity();
    }

    // Every copy into the NTT slots is done before this returns, on every way out: they read host memory
    // that finish() releases.
    struct copies_done_on_exit {
        cuda::ntt_context& ntt;
        ~copies_done_on_exit() {
            try {
                ntt.synchronize();
            } catch (const std::exception& e) {
                spdlog::error("CUDA backend: waiting for the NTT slots' copies failed: {}", e.what());
            }
        }
    } copies_done{*ntt_};

    // H: rows to the device, the 6 NTTs there, and the m - 1 coefficients (the top one is zero and has no
    // point) straight from the NTT slot into the H MSM's scalars. The rows are copied on the NTT context's
    // copy stream, each input's transforms starting as its copy lands, beside the next input's copy.
    const size_t m = size_t(1) << p.log_m;
    // A's scalars are the inputs, then the aux variables A uses; where it uses every one (a full A density;
    // the PoRep circuits leave a few out, so not there) its aux part is L's scalars (prepare left them there:
    // a_aux_in_aux), and the two MSMs run as one over the aux scalars (run_uploaded_ranges: one
    // classification, digits and sort for both), A's few inputs apart. On an H200 at the 32 GiB shape: 196.2 ms against 100.6 + 100.3 apart, and
    // prepare neither gathers nor pins A's 4.2 GB copy of the aux (BENCHMARKS.md, eighteenth session).
    const size_t n_in = w.params->vk.ic.size();
    const bool a_shares_l =
        p.a_aux_in_aux || (!p.aux.empty() && p.a_scalars.size() == n_in + p.aux.size());
    // Which NTT slot holds a query's scalars (copied there beside the H MSM), or -1 (uploaded before its MSM).
    int staged_in[3] = {-1, -1, -1};  // L, A, B_G1
    // B_G1 first, beside the rows' copies: its scalars are B_G2's, in the G2 context already (copied there by
    // the previous lock holder, or just now), and it reads them in place. The H transforms cannot start
    // before row a has landed (~80 ms at 32 GiB on an H200), and B_G2's MSM alone no longer fills that wait
    // where B's scalars are mostly zeros and ones as in a real partition (48 ms; BENCHMARKS.md, nineteenth
    // session). It returns before the prestage window opens, so the B_G2 thread overwrites those scalars
    // with the next partition's only after B_G1 has read them. Not with the points in host memory, whose
    // streamed segments would share the bus with the rows.
    const bool b_g1_first = m > 1 && b_g2.valid() && !r.on_host();
    // The rows stay allocated (and pinned) until finish: unpinning and freeing 12 GiB is CPU work that does not
    // belong under the lock.
    if (m > 1) {
        // Row a copied under the previous holder's kernels (the B_G2 thread, below): its buffer becomes slot 0,
        // and the transforms start without waiting for the 4 GiB copy (~80 ms at 32 GiB on an H200, which
        // B_G2's and B_G1's MSMs fill only in part: BENCHMARKS.md, nineteenth session). The previous holder's
        // kernels are all done, so nothing uses slot 0 or the spare.
        const bool row_a_prestaged = w.serial != 0 && spare_row_a_of_ == w.serial;
        if (row_a_prestaged) {
            ntt_->adopt_spare(0);
            spare_row_a_of_ = 0;  // the spare is slot 0's old buffer now
            ++b_g2_board_->row_a_used;
            if (!b_g2_board_->row_a_announced.exchange(true))
                spdlog::info("GPU {}: row a was copied under the previous partition's kernels, so this partition's "
                             "H transforms start at once under the lock",
                             gpu_);
        }
        for (int i = row_a_prestaged ? 1 : 0; i < 3; ++i) ntt_->load_padded_async(i, w.rows[i], p.log_m);
        ntt_->compute_h_resident(p.log_m);
        if (b_g1_first) {
            r.g1->use_scalars_device(r.g2->scalars_device(), p.b_scalars.size());
            w.kernels.b1_acc = r.g1->run_uploaded_range(r.b_g1.first, p.b_scalars.size());
        }
        ntt_->synchronize();
        if (window.board) window.board->open();
        // The MSMs read their scalars where they are, in the NTT slots (no device-to-device copy into the MSM
        // context: ~11 ms at 32 GiB on an H200, and 4 GiB of device memory): H's coefficients in slot 0.
        r.g1->use_scalars_device(ntt_->device_data(0), m - 1);
        // Slots 1 and 2 are free now: the L and A scalars go there over PCIe while the H MSM runs, and B_G1's
        // into slot 0 once the H MSM is done with it (under the L MSM), so their MSMs start without a host
        // upload (~9.8 GiB at 32 GiB, ~175 ms of the lock on an H200). A vector longer than a slot (a circuit
        // with more variables than its domain has rows) is uploaded as before.
        auto stage = [&](int q, std::span<const ff::fr_t> scalars, int slot) {
            if (scalars.empty() || scalars.size() > m) return;
            ntt_->load_padded_async(slot, scalars, p.log_m);
            staged_in[q] = slot;
        };
        stage(0, p.aux, 1);
        if (!a_shares_l) stage(1, p.a_scalars, 2);  // shared: A's aux part is L's, in slot 1 already
        w.kernels.h_acc = r.g1->run_uploaded_range(r.h.first, m - 1);
        if (!b_g1_first) stage(2, p.b_scalars, 0);  // the H MSM has returned: nothing reads slot 0 any more
    } else {
        // One row: H = (a b - c) / Z has no coefficient with a point.
        w.kernels.h_acc = ec::g1_jacobian_t::identity();
    }
    auto g1_msm = [&](const resident_params::query& q, std::span<const ff::fr_t> scalars, int slot) {
        if (slot < 0) return msm(*r.g1, q, scalars);
        r.g1->use_scalars_device(ntt_->device_data(slot), scalars.size());  // waits for the slot's copy
        return r.g1->run_uploaded_range(q.first, scalars.size());
    };
    if (a_shares_l) {
        if (staged_in[0] >= 0)
            r.g1->use_scalars_device(ntt_->device_data(staged_in[0]), p.aux.size());  // waits for the slot's copy
        else
            r.g1->upload_scalars(p.aux);
        const size_t firsts[2] = {r.l.first, r.a.first + n_in};
        const auto l_and_a = r.g1->run_uploaded_ranges(firsts, p.aux.size());
        w.kernels.l_acc = l_and_a[0];
        w.kernels.a_acc = l_and_a[1] + msm(*r.g1, r.a, std::span<const ff::fr_t>(p.a_scalars).first(n_in));
        ++l_a_shared_;
    } else {
        w.kernels.l_acc = g1_msm(r.l, p.aux, staged_in[0]);
        w.kernels.a_acc = g1_msm(r.a, p.a_scalars, staged_in[1]);
    }
    if (!b_g1_first) w.kernels.b1_acc = g1_msm(r.b_g1, p.b_scalars, staged_in[2]);
    if (window.board) window.board->close();  // the B_G2 thread waits for an offer until now
    if (b_g2.valid()) w.b2_acc = b_g2.get();  // rethrows a failure of the B_G2 thread
    w.kernels_done = true;
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
