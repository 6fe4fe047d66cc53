// cuda_backend::run_kernels: the kernels of one partition under the CUDA lock, in the order gpud runs them.
//   1. B_G2's scalars to the G2 context (or found there, b_g2_prestage.hpp), alone on the bus, and its MSM
//      started from a second host thread, which then copies the waiting partition's inputs.
//   2. The rows to the NTT context's slots on its copy stream, H's transforms starting as each lands; B_G1's
//      MSM beside them, reading B_G2's scalars in the G2 context.
//   3. The H MSM over slot 0 where the transforms left H's coefficients; the L and A scalars copied into the
//      freed slots 1 and 2 beside it (B_G1's into slot 0 after it, where B_G1 did not run in step 2).
//   4. The L and A MSMs (one run over the aux scalars where A uses every aux variable), then B_G1.
//   5. The B_G2 thread joined, every copy waited for: nothing of this partition outlives the lock.
// A compact partition (cuda_work::compact) runs compact_sequence.cpp's sequence instead.
#include <spdlog/spdlog.h>

#include <future>
#include <mutex>
#include <span>

#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/ntt.hpp"
#include "gpud/cuda_backend.hpp"
#include "gpud/cuda_backend/b_g2_prestage.hpp"
#include "gpud/cuda_backend/partition_work.hpp"
#include "gpud/cuda_backend/resident_params.hpp"
#include "gpud/cuda_backend/sequence_guards.hpp"

namespace cuzk::gpud {

namespace {

// sum scalars[i] * points[q.first + i] on the device; the identity for an empty query.
template <class F>
ec::jacobian_t<F> msm(cuda::msm_context<F>& ctx, const cuda_backend::resident_params::query& q,
                      std::span<const ff::fr_t> scalars) {
    if (scalars.empty()) return ec::jacobian_t<F>::identity();
    ctx.upload_scalars(scalars);
    return ctx.run_uploaded_range(q.first, scalars.size());
}

}  // namespace

struct cuda_backend::kernel_sequence {
    cuda_backend& be;
    cuda_work& w;
    resident_params& r;
    groth16::prepared_partition& p = w.prepared;
    cuda::ntt_context& ntt = *be.ntt_;
    const size_t m = size_t(1) << p.log_m;
    const size_t n_in = w.params->vk.ic.size();
    // A's scalars are the inputs, then the aux variables A uses; where it uses every one (a full A density; the
    // PoRep circuits leave a few out, so not there) its aux part is L's scalars (prepare left them there:
    // a_aux_in_aux), and the two MSMs run as one over the aux scalars (run_uploaded_ranges: one classification,
    // digits and sort for both), A's few inputs apart. On an H200 at the 32 GiB shape: 196.2 ms against
    // 100.6 + 100.3 apart, and prepare neither gathers nor pins A's 4.2 GB copy of the aux
    // (docs/benchmarks-history.md).
    const bool a_shares_l = p.a_aux_in_aux || (!p.aux.empty() && p.a_scalars.size() == n_in + p.aux.size());
    // B_G1 runs beside the rows' copies (transform_rows) rather than last; set in run().
    bool b_g1_first = false;
    // Which NTT slot holds a query's scalars (copied there beside the H MSM), or -1 (uploaded before its MSM).
    int staged_in[3] = {-1, -1, -1};  // L, A, B_G1

    void run();
    std::future<ec::g2_jacobian_t> start_b_g2();
    void transform_rows();
    void h_msm_staging_scalars();
    void stage(int q, std::span<const ff::fr_t> scalars, int slot);
    void l_and_a_msms();
    ec::g1_jacobian_t g1_msm(const resident_params::query& q, std::span<const ff::fr_t> scalars, int slot);
};

// An allocation refused for want of device memory (the plans' estimates missed something: a buffer they do
// not count, a run larger than estimated) is not the partition's fault and not the context's: the MSM scratch
// is freed and planned again with the refused size kept out, and a compact partition's kernels run again at
// once (they read only the ring slot and the resident sets, and write what a second run writes again). A
// full-witness partition's sequence has taken its prestaged inputs on the way, so it fails retryable instead,
// and its retry plans with the margin.
void cuda_backend::run_kernels(partition_work& work) {
    auto& w = as_cuda(work);
    std::lock_guard lk(mu_);
    // A small set's contexts also serve the side lane (side_lane.cpp): its kernels here wait for a run there.
    std::unique_lock side(side_mu_, std::defer_lock);
    if (w.prepared.log_m <= side_lane_max_log_) side.lock();
    constexpr int replans = 2;
    for (int attempt = 0;; ++attempt) {
        try {
            if (w.compact)
                run_compact_kernels(w);
            else
                run_full_kernels(w);
            note_scratch_held();
            return;
        } catch (const cuda::device_out_of_memory& e) {
            plan_after_out_of_memory(w, e);
            if (!w.compact || attempt == replans) throw;
            spdlog::warn("GPU {}: proving the partition again under the new plan", gpu_);
        }
    }
}

void cuda_backend::run_full_kernels(cuda_work& w) {
    resident_params& r = resident_for(*w.params);
    if (!r.scratch_planned) plan_device_memory(r, w.prepared.log_m, true);
    const auto before = r.streamed_totals();
    kernel_sequence{*this, w, r}.run();
    note_streamed(r, before);
}

void cuda_backend::note_streamed(const resident_params& r, const cuda::msm_stream_totals& before) {
    const auto now = r.streamed_totals();
    streamed_segments_ += now.segments - before.segments;
    sparse_segments_ += now.sparse_segments - before.sparse_segments;
}

void cuda_backend::kernel_sequence::run() {
    if (w.board) w.board->withdraw(&w);  // taken or not, nobody copies it now: its kernels run
    std::future<ec::g2_jacobian_t> b_g2;
    join_on_exit b_g2_done{b_g2};
    // Closed before |b_g2_done| waits: a B_G2 thread waiting for an offer is let go on every way out.
    b_g2_prestage_window window{be.b_g2_board_.get()};
    b_g2 = start_b_g2();
    ntt_done_on_exit copies_done{ntt};

    // B_G1 first, beside the rows' copies: its scalars are B_G2's, in the G2 context already (copied there by
    // the previous lock holder, or just now), and it reads them in place. The H transforms cannot start before
    // row a has landed (~80 ms at 32 GiB on an H200), and B_G2's MSM alone no longer fills that wait where B's
    // scalars are mostly zeros and ones as in a real partition (48 ms on an H200; docs/benchmarks-history.md). It
    // returns
    // before the prestage window opens, so the B_G2 thread overwrites those scalars with the next partition's
    // only after B_G1 has read them. Not with B_G1's points streamed from host memory, whose segments would share
    // the bus with the rows.
    b_g1_first = m > 1 && b_g2.valid() && (!r.on_host() || r.b_g1.first + r.b_g1.size <= r.g1_resident);
    // The rows stay allocated (and pinned) until finish: unpinning and freeing 12 GiB is CPU work that does not
    // belong under the lock.
    if (m > 1) {
        transform_rows();
        window.open();
        h_msm_staging_scalars();
    } else {
        // One row: H = (a b - c) / Z has no coefficient with a point.
        w.kernels.h_acc = ec::g1_jacobian_t::identity();
    }
    l_and_a_msms();
    if (!b_g1_first) w.kernels.b1_acc = g1_msm(r.b_g1, p.b_scalars, staged_in[2]);
    window.close();  // the B_G2 thread waits for an offer until now
    if (b_g2.valid()) w.b2_acc = b_g2.get();  // rethrows a failure of the B_G2 thread
    w.kernels_done = true;
}

// B_G2 from a second host thread, beside the G1 work: its own context and stream, so its kernels fill the SMs
// the NTTs and G1 MSMs leave idle (their tails, the host-side waits between them). On an H200 the 32 GiB-shape
// partition's GPU work with its uploads took 1,754 ms this way against 1,830 one after the other
// (docs/benchmarks-history.md).
//
// Its scalars are copied first, before the rows, and alone on the bus: nothing can run until some input has
// landed, and B_G2's is the smallest copy that unlocks the most kernels (32 GiB shape on an H200: ~26 ms of
// copy, ~110 ms of MSM, under which row a's ~79 ms copy lands). Queued from the B_G2 thread beside the rows'
// copies instead, it landed after all three rows (~259 ms on an H200), and the GPU idled until row a was in
// (docs/benchmarks-history.md).
//
// Then the same thread copies the inputs of a partition waiting for the lock (b_g2_prestage.hpp), from the
// moment the H transforms are done (the rows have landed; the copy shares the bus only with the L, A and B_G1
// scalars' copies into the NTT slots, which end long before the H MSM does) to the end of the kernels (a copy
// taken as they end may outlast them by up to its length, which the waiting partition then does not spend).
std::future<ec::g2_jacobian_t> cuda_backend::kernel_sequence::start_b_g2() {
    if (r.g2 && !p.b_scalars.empty()) {
        be.b_g2_scalars_to_device(r, w);
        return std::async(std::launch::async, [&be = be, &r = r, &p = p, board = be.b_g2_board_.get(),
                                               params = w.params] {
            // Beside the G1 work: its streamed segments copied whole, not gathered (msm_options::sparse_gather).
            const auto acc = r.g2->run_uploaded_range(r.b_g2.first, p.b_scalars.size(), nullptr,
                                                      cuda::msm_options{.sparse_gather = false});
            be.prestage_waiting_partition(*board, r, params);
            return acc;
        });
    }
    if (r.g2) w.b2_acc = ec::g2_jacobian_t::identity();
    return {};
}

// H: rows to the device and the 6 NTTs there. The rows are copied on the NTT context's copy stream, each input's
// transforms starting as its copy lands, beside the next input's copy. A row a copied under the previous
// holder's kernels becomes slot 0, and the transforms start without waiting for its 4 GiB copy (~80 ms at
// 32 GiB on an H200, which B_G2's and B_G1's MSMs fill only in part; docs/benchmarks-history.md).
void cuda_backend::kernel_sequence::transform_rows() {
    const bool row_a_prestaged = be.adopt_prestaged_row_a(w);
    for (int i = row_a_prestaged ? 1 : 0; i < 3; ++i) ntt.load_padded_async(i, w.rows[i], p.log_m);
    ntt.compute_h_resident(p.log_m);
    if (b_g1_first) {
        r.g1->use_scalars_device(r.g2->scalars_device(), p.b_scalars.size());
        w.kernels.b1_acc = r.g1->run_uploaded_range(r.b_g1.first, p.b_scalars.size());
    }
    ntt.synchronize();
}

// The H MSM over the m - 1 coefficients (the top one is zero and has no point) where they are, in slot 0 (no
// device-to-device copy into the MSM context: ~11 ms at 32 GiB on an H200, and 4 GiB of device memory). Slots 1
// and 2 are free now: the L and A scalars go there over PCIe while the H MSM runs, and B_G1's into slot 0 once
// the H MSM is done with it (under the L MSM), so their MSMs start without a host upload (~9.8 GiB at 32 GiB,
// ~175 ms of the lock on an H200).
void cuda_backend::kernel_sequence::h_msm_staging_scalars() {
    r.g1->use_scalars_device(ntt.device_data(0), m - 1);
    stage(0, p.aux, 1);
    if (!a_shares_l) stage(1, p.a_scalars, 2);  // shared: A's aux part is L's, in slot 1 already
    w.kernels.h_acc = r.g1->run_uploaded_range(r.h.first, m - 1);
    if (!b_g1_first) stage(2, p.b_scalars, 0);  // the H MSM has returned: nothing reads slot 0 any more
}

// Query |q|'s scalars into NTT slot |slot|; a vector longer than a slot (a circuit with more variables than its
// domain has rows) is uploaded before its MSM instead.
void cuda_backend::kernel_sequence::stage(int q, std::span<const ff::fr_t> scalars, int slot) {
    if (scalars.empty() || scalars.size() > m) return;
    ntt.load_padded_async(slot, scalars, p.log_m);
    staged_in[q] = slot;
}

void cuda_backend::kernel_sequence::l_and_a_msms() {
    if (!a_shares_l) {
        w.kernels.l_acc = g1_msm(r.l, p.aux, staged_in[0]);
        w.kernels.a_acc = g1_msm(r.a, p.a_scalars, staged_in[1]);
        return;
    }
    if (staged_in[0] >= 0)
        r.g1->use_scalars_device(ntt.device_data(staged_in[0]), p.aux.size());  // waits for the slot's copy
    else
        r.g1->upload_scalars(p.aux);
    const size_t firsts[2] = {r.l.first, r.a.first + n_in};
    const auto l_and_a = r.g1->run_uploaded_ranges(firsts, p.aux.size());
    w.kernels.l_acc = l_and_a[0];
    w.kernels.a_acc = l_and_a[1] + msm(*r.g1, r.a, std::span<const ff::fr_t>(p.a_scalars).first(n_in));
    ++be.l_a_shared_;
}

ec::g1_jacobian_t cuda_backend::kernel_sequence::g1_msm(const resident_params::query& q,
                                                         std::span<const ff::fr_t> scalars, int slot) {
    if (slot < 0) return msm(*r.g1, q, scalars);
    r.g1->use_scalars_device(ntt.device_data(slot), scalars.size());  // waits for the slot's copy
    return r.g1->run_uploaded_range(q.first, scalars.size());
}

}  // namespace cuzk::gpud
