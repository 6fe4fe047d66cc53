// The points of one parameters object on the device (cuda_backend::resident_for): h, l, a, b_g1 back to back in
// one G1 MSM context, so the four MSMs share one set of scratch buffers, and b_g2 in a G2 context when B_G2 is
// on the GPU; or, where the device has no room for them, packed and page-locked in host memory and streamed to
// the contexts in segments. With them, once a compact partition of the circuit came, its R1CS matrices
// (cuda::r1cs_device). One upload per parameters object, kept until the object is forgotten (gpud: freed after
// an evict) or another object turns up at its address. Once uploaded (or packed for streaming), the host vectors'
// pages are given back to the kernel where the backend was told to ([gpud] release_host_points): the vectors keep
// their addresses and sizes, by which the set is still known, and their pages are restored when this goes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/groth16/keys.hpp"
#include "common/r1cs/matrix_sizes.hpp"
#include "common/util/released_pages.hpp"
#include "gpud/cuda/host_pin.hpp"
#include "gpud/cuda/msm.hpp"
#include "gpud/scratch_plan.hpp"
#include "gpud/cuda/r1cs_device.hpp"
#include "gpud/cuda_backend.hpp"

namespace cuzk::gpud {

// The object is known by its address; the addresses and sizes of its point vectors are kept too, so a
// different object later at the same address is uploaded afresh rather than proved against stale points.
struct cuda_backend::resident_params {
    struct query {
        const void* host = nullptr;
        size_t size = 0;
        size_t first = 0;  // index of its first point in the context
    };
    query h, l, a, b_g1, b_g2;
    // The pages of the parameters' point vectors given back (util::released_pages), restored when this goes,
    // before the parameters object is freed (gpud frees it after forget).
    std::vector<util::released_pages> released;
    size_t released_bytes() const {
        size_t n = 0;
        for (const auto& p : released) n += p.bytes();
        return n;
    }
    bool scratch_planned = false;  // plan_device_memory applied (before the first kernels on these points)
    size_t witness_bytes_planned = 0;  // the compact witness's device buffers when the plan was made
    // The serial of the work whose B_G2 scalars the G2 context holds, copied there under an earlier
    // partition's kernels (b_g2_prestage.hpp), or 0 (none, or not known to be anyone's).
    uint64_t g2_scalars_of = 0;
    // With the points in host memory (params_placement::host): their packed copies, page-locked, and the
    // segment (points per streamed copy) of each context. Declared before the pins and the contexts, which
    // read them: destroyed after both.
    std::unique_ptr<std::byte[]> host_g1, host_g2;
    cuda::host_pin pin_g1, pin_g2;
    size_t segment_g1 = 0, segment_g2 = 0;
    // With the points in host memory: the G1 context's first points kept on the device (its queries l, a, b_g1,
    // h in that order; host_g1 holds the others), and B_G2's whole where host_g2 is null.
    size_t g1_resident = 0;
    // Some points streamed from host memory.
    bool on_host() const { return host_g1 != nullptr; }
    // The largest run of each context: a whole query resident, its resident part, or a streamed segment.
    size_t largest_g1_run() const {
        const std::vector<size_t> sizes = {l.size, a.size, b_g1.size, h.size};  // the context's order
        return on_host() ? largest_run(sizes, g1_resident, segment_g1) : *std::max_element(sizes.begin(), sizes.end());
    }
    size_t largest_g2_run() const { return !g2 ? 0 : host_g2 ? segment_g2 : b_g2.size; }
    // Segments its contexts' runs streamed so far, and of them those gathered sparse (msm_context::streamed_totals).
    cuda::msm_stream_totals streamed_totals() const {
        cuda::msm_stream_totals t = g1 ? g1->streamed_totals() : cuda::msm_stream_totals{};
        if (g2) {
            const auto t2 = g2->streamed_totals();
            t.segments += t2.segments;
            t.sparse_segments += t2.sparse_segments;
        }
        return t;
    }
    // Device bytes of the points (those kept there where some are streamed; segment buffers not counted).
    size_t device_point_bytes() const {
        if (!on_host()) return bytes();
        return g1_resident * 2 * sizeof(ff::fp_t) + (g2 && !host_g2 ? b_g2.size * 2 * sizeof(ff::fp2_t) : 0);
    }
    std::unique_ptr<cuda::g1_msm_context> g1;
    std::unique_ptr<cuda::g2_msm_context> g2;  // null when B_G2 runs on the CPU
    // The circuit's matrices for compact partitions (cuda_backend::make_matrices_resident), or null: uploaded by
    // the first compact partition before the points and the MSM scratch plan, so both leave room for them (~6 GB
    // at the 32 GiB shape). Known by their host address and sizes, as the points are.
    const r1cs::r1cs_matrices* matrices_host = nullptr;
    r1cs::matrix_sizes matrices_sizes;
    std::unique_ptr<cuda::r1cs_device> matrices;

    bool holds(const r1cs::r1cs_matrices& m) const {
        return matrices && matrices_host == &m && matrices_sizes == r1cs::sizes_of(m);
    }

    template <class P>
    static bool same(const query& q, const std::vector<P>& v) {
        return q.host == v.data() && q.size == v.size();
    }
    bool matches(const groth16::parameters& p) const {
        return same(h, p.h) && same(l, p.l) && same(a, p.a) && same(b_g1, p.b_g1) && (!g2 || same(b_g2, p.b_g2));
    }
    size_t host_pinned_bytes() const {
        return (pin_g1.pinned() ? pin_g1.bytes() : 0) + (pin_g2.pinned() ? pin_g2.bytes() : 0);
    }
    // The NTT domain its h query implies: 2^domain_log() >= h.size + 1.
    unsigned domain_log() const {
        unsigned log = 0;
        while ((size_t(1) << log) < h.size + 1) ++log;
        return log;
    }
    size_t bytes() const {
        return (h.size + l.size + a.size + b_g1.size) * 2 * sizeof(ff::fp_t) +
               (g2 ? b_g2.size * 2 * sizeof(ff::fp2_t) : 0);
    }
};

}  // namespace cuzk::gpud
