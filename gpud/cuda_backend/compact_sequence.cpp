// cuda_backend::run_kernels for a compact partition (cuda_work::compact): the rows and the A and B scalars made
// on the device from the circuit's resident R1CS matrices (gpud/cuda/r1cs_witness.hpp), so ~100 MB of witness
// crosses PCIe instead of ~17 GB at the 32 GiB shape, and no host memory holds rows or scalars.
//   1. The inputs and the compact aux copied from where synthd wrote them (one or two copies from a ring slot,
//      page-locked once), B's scalars gathered, and B_G2's MSM started on them from a second host thread,
//      reading them in place.
//   2. z expanded (its aux part is L's scalars), the rows a, b, c evaluated into NTT slots 0..2, H's transforms
//      queued, and B_G1's MSM beside them, reading B's scalars in place too.
//   3. A's scalars gathered into slot 1 (free once the transforms are done: no buffer of their own, 4.2 GB at
//      the 32 GiB shape), then the H MSM over slot 0 where the transforms left H's coefficients (with its
//      points in host memory, their first segment copied under the transforms: msm_context::prefetch_range).
//   4. L over z's aux part and A over slot 1; where A uses every aux variable its scalars are z and the two run
//      as one (run_uploaded_ranges), as kernel_sequence.cpp runs them.
//   5. B_G2 joined. Every copy is synchronous: nothing reads the partition's host memory after run_kernels.
// The B_G2 prestage and the spare slot's row a (b_g2_prestage.hpp) are not used: the inputs they copy early are
// made here on the device from ~100 MB copied in a few ms.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <stdexcept>

#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/ntt.hpp"
#include "gpud/cuda/r1cs_device.hpp"
#include "gpud/cuda/r1cs_witness.hpp"
#include "gpud/cuda_backend.hpp"
#include "gpud/cuda_backend/elapsed.hpp"
#include "gpud/cuda_backend/partition_work.hpp"
#include "gpud/cuda_backend/resident_params.hpp"
#include "gpud/cuda_backend/sequence_guards.hpp"

namespace cuzk::gpud {

namespace {

constexpr double gib = double(1ull << 30);

// The rows and the gathers read z's aux values from the compact vector: its block words (32 MB at the 32 GiB
// shape) stay in the L2 cache, where z in full (4.2 GB) does not (r1cs_rows.cuh).
constexpr cuda::z_source z_read = cuda::z_source::compact;

// sum scalars[i] * points[first + i] over |n| scalars in device memory, read in place; the identity for none.
template <class F>
ec::jacobian_t<F> msm_in_place(cuda::msm_context<F>& ctx, size_t first, const ff::fr_t* scalars, size_t n,
                               const cuda::msm_options& opt = {}) {
    if (n == 0) return ec::jacobian_t<F>::identity();
    ctx.use_scalars_device(scalars, n);
    return ctx.run_uploaded_range(first, n, nullptr, opt);
}

// The MSMs that run beside other kernels (B_G1 beside H's transforms, B_G2 on its own thread) copy their streamed
// segments whole: the sparse gather would take SMs from the kernels beside them (msm_options::sparse_gather).
const cuda::msm_options beside_other_kernels{.sparse_gather = false};

// A's scalars go into NTT slot 1 once H's transforms are done with it, where they are gathered at all (A leaves
// some aux variable out: else they are z) and fit the domain (a circuit may have more variables than rows).
bool a_scalars_in_slot(const cuda::r1cs_device& m, unsigned log_m) {
    return log_m > 0 && m.a_aux_count() != m.num_aux() && m.num_inputs() + m.a_aux_count() <= (uint64_t(1) << log_m);
}

}  // namespace

void cuda_backend::make_matrices_resident(resident_params& r, const compact_partition& w, unsigned log_m) {
    const r1cs::r1cs_matrices& m = *w.matrices;
    if (!r.holds(m)) {
        const auto t0 = std::chrono::steady_clock::now();
        r.matrices.reset();  // freed before the new upload
        r.matrices = std::make_unique<cuda::r1cs_device>(m, gpu_);
        r.matrices_host = &m;
        r.matrices_sizes = r1cs::sizes_of(m);
        // Planned again with the matrices in, and without the spare slot: its 2^log_m elements (4 GiB at the
        // 32 GiB shape) serve only full-witness partitions' row a, which copy their own without it.
        r.scratch_planned = false;
        if (ntt_->spare_capacity() > 0) {
            spare_row_a_of_ = 0;
            ntt_->release_spare();
        }
        spdlog::info("GPU {}: R1CS matrices resident ({} rows, {} terms, {} long rows; {:.2f} GiB) in {:.2f} s", gpu_,
                     r.matrices->circuit_rows(), r.matrices->non_zeros(), r.matrices->long_rows(),
                     double(r.matrices->device_bytes()) / gib, seconds_since(t0));
    }
    if (!compact_witness_) compact_witness_ = std::make_unique<cuda::r1cs_witness>(gpu_);
    // A plan made before this partition's witness grew its buffers (PreloadSRS reserves for the matrices alone,
    // and a WindowPoSt's compact aux, nearly all full field elements, takes 4 GB more at 32 GiB) counted that
    // memory as the MSMs': planned again, their scratch freed first so the plan sees it free (and the buffers
    // find room where the scratch took it).
    auto release_scratch = [&r] {
        if (r.g1) r.g1->release_scratch();
        if (r.g2) r.g2->release_scratch();
        r.scratch_planned = false;
    };
    try {
        reserve_witness(*compact_witness_, r, w, log_m);
    } catch (const cuda::device_out_of_memory&) {
        release_scratch();
        reserve_witness(*compact_witness_, r, w, log_m);
    }
    // Only a growth beyond what the plan's reserve absorbs: a PoRep partition's compact aux varies by kilobytes
    // from one partition to the next, and freeing and growing again tens of GiB of scratch under the lock for
    // each new largest one would cost every such partition. What slips under this is left to the replan after
    // a refused allocation (run_kernels).
    constexpr size_t replan_growth = size_t(256) << 20;
    const size_t now = compact_witness_->device_bytes();
    if (r.scratch_planned && now > r.witness_bytes_planned + replan_growth) {
        release_scratch();
        spdlog::info("GPU {}: the compact witness's buffers grew by {:.2f} GiB since the plan: MSM scratch planned "
                     "again",
                     gpu_, double(now - r.witness_bytes_planned) / gib);
    }
}

void cuda_backend::reserve_witness(cuda::r1cs_witness& z, const resident_params& r, const compact_partition& w,
                                   unsigned log_m) {
    z.reserve(*r.matrices, w.inputs, w.aux, a_scalars_in_slot(*r.matrices, log_m));
}

struct cuda_backend::compact_sequence {
    cuda_backend& be;
    cuda_work& w;
    resident_params& r;
    // The lane's: the backend's own under the lock, the side lane's beside it (side_lane.cpp).
    cuda::ntt_context& ntt;
    cuda::r1cs_witness& z;
    bool counted = true;  // false: a warm-up run (warm_side_lane), left out of the partition counters
    const compact_partition& c = *w.compact;
    const cuda::r1cs_device& m = *r.matrices;
    const unsigned log_m = w.prepared.log_m;
    const size_t n = size_t(1) << log_m;
    const size_t n_in = m.num_inputs(), n_aux = m.num_aux();
    // A uses every aux variable: its scalars are z, and L and A run as one over the aux part.
    const bool a_shares_l = n_aux > 0 && m.a_aux_count() == n_aux;

    void run();
    std::future<ec::g2_jacobian_t> start_b_g2();
    void h_beside_b_g1();
    void l_and_a_msms();
};

void cuda_backend::run_compact_kernels(cuda_work& w) {
    if (!w.compact->matrices) throw std::logic_error("CUDA backend: a compact partition without its matrices");
    resident_params& r = resident_for(*w.params, &*w.compact, w.prepared.log_m);
    if (!r.g2) throw std::logic_error("CUDA backend: a compact partition's kernels with B_G2 on the CPU");
    if (!r.scratch_planned) plan_device_memory(r, w.prepared.log_m, false);
    const auto before = r.streamed_totals();
    compact_sequence{*this, w, r, *ntt_, *compact_witness_}.run();
    note_streamed(r, before);
}

void cuda_backend::run_on_side_lane(cuda_work& w, resident_params& r, bool counted) {
    if (!side_ntt_) side_ntt_ = std::make_unique<cuda::ntt_context>(gpu_, cuda::stream_priority::high);
    if (!side_witness_) side_witness_ = std::make_unique<cuda::r1cs_witness>(gpu_, cuda::stream_priority::high);
    reserve_witness(*side_witness_, r, *w.compact, w.prepared.log_m);
    const auto before = r.streamed_totals();
    compact_sequence{*this, w, r, *side_ntt_, *side_witness_, counted}.run();
    note_streamed(r, before);
    // msm_scratch_bytes_ is not summed here: that reads |resident_|, which only |mu_| guards (the next run under
    // the lock counts this set's scratch).
    if (counted) ++beside_lock_partitions_;
}

void cuda_backend::compact_sequence::run() {
    std::future<ec::g2_jacobian_t> b_g2;
    join_on_exit b_g2_done{b_g2};
    ntt_done_on_exit ntt_done{ntt};
    // The G2 context is about to read this partition's scalars: what an earlier holder copied into it for a
    // waiting full-witness partition is no longer found there (that partition copies its own again).
    r.g2_scalars_of = 0;

    // Host wall time between the steps' returns, for the debug line below: where the problem sits when a
    // circuit's kernels are slow (a step whose kernels still run when it returns counts in the next one; the MSMs
    // return their sums, so the H MSM ends the third and the L and A MSMs the fourth; B_G2 runs on its own thread).
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    auto ms_since = [](clock::time_point t) { return seconds_since(t) * 1e3; };
    z.upload(m, c.inputs, c.aux);
    if (counted) be.compact_uploaded_bytes_ += z.uploaded_bytes();
    spdlog::debug("GPU {}: compact witness of {} bytes copied in {} copies", be.gpu_, z.uploaded_bytes(),
                  z.upload_copies());
    const double upload_ms = ms_since(t0);
    auto t = clock::now();
    z.gather_b_scalars(m, z_read);
    b_g2 = start_b_g2();
    z.expand(m);
    const double expand_ms = ms_since(t);
    t = clock::now();
    if (n > 1) {
        h_beside_b_g1();
    } else {
        // One row: H = (a b - c) / Z has no coefficient with a point.
        w.kernels.h_acc = ec::g1_jacobian_t::identity();
        w.kernels.b1_acc = msm_in_place(*r.g1, r.b_g1.first, z.b_scalars(), z.b_scalar_count());
        z.gather_a_scalars(m, nullptr, z_read);
    }
    const double h_ms = ms_since(t);
    t = clock::now();
    l_and_a_msms();
    const double l_a_ms = ms_since(t);
    t = clock::now();
    if (b_g2.valid()) w.b2_acc = b_g2.get();  // rethrows a failure of the B_G2 thread
    spdlog::debug("GPU {}: compact partition's kernels in {:.1f} ms: witness copied {:.1f}, B scalars gathered and "
                  "witness expanded {:.1f}, rows + H's transforms + B_G1 + H MSM {:.1f}, L and A MSMs {:.1f}, B_G2 "
                  "waited for {:.1f} (domain 2^{}, {} aux)",
                  be.gpu_, ms_since(t0), upload_ms, expand_ms, h_ms, l_a_ms, ms_since(t), log_m, n_aux);
    w.kernels_done = true;
    if (counted) ++be.compact_partitions_;
}

// B_G2 from a second host thread, beside everything else, on B's scalars where gather_b_scalars left them (they
// stay unchanged until the next partition's upload, after this one's kernels).
std::future<ec::g2_jacobian_t> cuda_backend::compact_sequence::start_b_g2() {
    const size_t nb = z.b_scalar_count();
    if (nb == 0) {
        w.b2_acc = ec::g2_jacobian_t::identity();
        return {};
    }
    r.g2->use_scalars_device(z.b_scalars(), nb);
    return std::async(std::launch::async, [&g2 = *r.g2, first = r.b_g2.first, nb] {
        return g2.run_uploaded_range(first, nb, nullptr, beside_other_kernels);
    });
}

// The rows into the NTT slots and H's transforms there; B_G1's MSM beside the transforms; then A's scalars into
// slot 1 and the H MSM over slot 0.
void cuda_backend::compact_sequence::h_beside_b_g1() {
    ff::fr_t* rows[3];
    for (int s = 0; s < 3; ++s) rows[s] = ntt.slot_for_writing(s, log_m);
    z.evaluate_rows(m, rows[0], rows[1], rows[2], log_m, z_read);  // returns with the rows written
    ntt.compute_h_resident(log_m);
    w.kernels.b1_acc =
        msm_in_place(*r.g1, r.b_g1.first, z.b_scalars(), z.b_scalar_count(), beside_other_kernels);
    // With H's points streamed from host memory, their first segment copied now, under the transforms (B_G1's
    // MSM has returned: the segment buffers are free), so the H MSM starts at its kernels instead of after one
    // segment's copy (~65 ms of the link at 32 GiB on an H100).
    r.g1->prefetch_range(r.h.first, n - 1);
    // A's scalars into slot 1, which the transforms leave free (slot_for_writing waits for them); where they go
    // elsewhere, synchronize() waits instead. Either way H's coefficients are complete before the H MSM reads
    // slot 0 from the G1 context's stream.
    ff::fr_t* a_to = a_scalars_in_slot(m, log_m) ? ntt.slot_for_writing(1, log_m) : nullptr;
    if (!a_to) ntt.synchronize();
    z.gather_a_scalars(m, a_to, z_read);
    w.kernels.h_acc = msm_in_place(*r.g1, r.h.first, ntt.device_data(0), n - 1);
}

void cuda_backend::compact_sequence::l_and_a_msms() {
    if (!a_shares_l) {
        w.kernels.l_acc = msm_in_place(*r.g1, r.l.first, z.aux(), n_aux);
        w.kernels.a_acc = msm_in_place(*r.g1, r.a.first, z.a_scalars(), z.a_scalar_count());
        return;
    }
    r.g1->use_scalars_device(z.aux(), n_aux);
    const size_t firsts[2] = {r.l.first, r.a.first + n_in};
    const auto l_and_a = r.g1->run_uploaded_ranges(firsts, n_aux);
    w.kernels.l_acc = l_and_a[0];
    w.kernels.a_acc = l_and_a[1] + msm_in_place(*r.g1, r.a.first, z.z(), n_in);  // A's inputs: z's head
    ++be.l_a_shared_;
}

}  // namespace cuzk::gpud
