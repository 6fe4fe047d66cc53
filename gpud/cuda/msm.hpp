// Multi-scalar multiplication on the GPU with the points resident in device memory: upload (or
// generate) the points once, then run many MSMs against them, each with fresh scalars.
//
//   cuda::msm_context<ff::fp_t> g1(0);      // G1; msm_context<ff::fp2_t> for G2
//   g1.upload_points(points);
//   ec::g1_jacobian_t r = g1.run(scalars);   // == msm::multi_exp<fp_t>(points, scalars)
//
// Per run: scalars (Montgomery form, as the prover holds them) are classified on the device: zeros
// are skipped, ones are summed as one bucket with batch-affine additions (a parallel reduction of mixed
// additions when they are few), the rest go through
// Pippenger with signed window digits: digits per window, a radix sort of (bucket, point) pairs per
// window, bucket accumulation in fixed-length chunks of the sorted pairs (every thread does the same
// number of additions whatever the bucket sizes), bucket reduction as a weighted sum split into
// segments, and the few window sums are combined on the host. Every CUDA call is checked; failures
// throw cuda_error (cuda_error.hpp). Not thread-safe: one context per worker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/ec/jacobian.hpp"
#include "common/ff/bls12_381.hpp"
#include "common/ff/fp2.hpp"
#include "gpud/cuda/stream_priority.hpp"

namespace cuzk::cuda {

// Which of the production sums a run takes: by_size, the one the sizes choose (G1's buckets: msm_window.hpp,
// affine_runs_pay; G2's: batch-affine always; the one-scalars' points: batch-affine from G1_ONES_AFFINE_MIN or
// G2_ONES_AFFINE_MIN on, msm_ones.cuh), or one of them forced, so that tests reach every path with small
// inputs and benchmarks time one against the other where those thresholds were measured. xyzz: mixed XYZZ
// additions; batch_affine: batch-affine rounds, then XYZZ additions for what they leave
// (msm_batch_affine.cuh). G2's buckets have no XYZZ sum (invalid_argument).
enum class msm_sum { by_size, xyzz, batch_affine };

struct msm_options {
    unsigned window_bits = 0;  // 0: chosen from the number of non-0/1 scalars
    bool timing = false;       // fill the phase times of msm_report (CUDA events)
    msm_sum buckets = msm_sum::by_size;  // how the buckets are summed
    msm_sum ones = msm_sum::by_size;     // how the one-scalars' points are summed
    // Use the precomputed window multiples (precompute_window_multiples) where the cost model prefers them;
    // false: the plain windows (for comparisons).
    bool use_multiples = true;
    // Every window |window_bits| wide (as before the even split, for comparisons); false: from c = 21 on, the
    // ceil(256 / c) windows split 256 bits evenly, each c or c - 1 bits (msm_digits.cuh, window_split).
    bool uniform_windows = false;
    // With the context's sparse streaming on (set_sparse_streaming): false copies this run's streamed segments whole.
    // For a run beside other kernels (a partition's B_G1 beside H's transforms, B_G2 on its own thread): the
    // gather's blocks would wait on the link inside SMs those kernels need, where the copy engine takes none (an
    // H100 measured gpud's compact sequence slower with every segment gathered than with none: BENCHMARKS.md).
    bool sparse_gather = true;
};

// What one run did, for logs and benchmarks.
struct msm_report {
    size_t zeros = 0;
    size_t ones = 0;
    size_t others = 0;         // scalars that went through Pippenger
    unsigned window_bits = 0;  // the widest window's bits; 0 when no scalar went through Pippenger
    unsigned wide_windows = 0;  // windows of window_bits bits (the first ones); the rest are a bit narrower
    unsigned windows = 0;
    bool multiples = false;    // the precomputed window multiples were used: one set of buckets for all windows
    bool batch_affine = false;  // the buckets went through the batch-affine rounds (msm_sum)
    unsigned passes = 0;       // Pippenger passes over the windows (more than one under a scratch limit)
    unsigned segments = 0;     // with the points in host memory: the segments streamed (their passes summed)
    bool prefetched = false;   // its first streamed segment was copied ahead (msm_context::prefetch_range)
    unsigned sparse_segments = 0;  // streamed segments of which only the points read came over (set_sparse_streaming)
    // Device time per phase when msm_options::timing: classification, one-scalar sum, digits and
    // sort, bucket accumulation (with split buckets), bucket reduction to window sums, rest.
    float ms_classify = 0, ms_ones = 0, ms_sort = 0, ms_accumulate = 0, ms_reduce = 0, ms_finish = 0;
    // Within ms_accumulate, the batch-affine rounds' kernels by kind where they run on one stream (G1; G2 with
    // one batch: its batches alternate between two streams, which overlap, and these stay 0), from events
    // between consecutive launches: AFFINE_FIRST_PAIRS (round 0's pairs, with the previous batch's rest where
    // they run together), AFFINE_INVERT, AFFINE_SUMS, AFFINE_PAIRS (the later rounds' pairs), AFFINE_REST
    // (rests run alone).
    enum { AFFINE_FIRST_PAIRS, AFFINE_INVERT, AFFINE_SUMS, AFFINE_PAIRS, AFFINE_REST, AFFINE_KINDS };
    float ms_affine[AFFINE_KINDS] = {};
};

// msm_report's segment counts summed over every run of a context (msm_context::streamed_totals): a backend
// reports them without asking a report of each run.
struct msm_stream_totals {
    std::uint64_t segments = 0, sparse_segments = 0;
};

template <class F>  // ff::fp_t: G1, ff::fp2_t: G2
class msm_context {
public:
    explicit msm_context(int device = 0, stream_priority priority = stream_priority::normal);
    ~msm_context();
    msm_context(const msm_context&) = delete;
    msm_context& operator=(const msm_context&) = delete;

    // Copies |points| to the device; they replace any earlier points and stay for later runs.
    void upload_points(std::span<const ec::affine_t<F>> points);
    // Makes |n| benchmark points on the device from host-made |seeds| (at least 2048 + ceil(n / 2^20)
    // points on the curve with distinct x): Q_i = seeds[i mod 1024] + seeds[1024 + (i / 1024) mod 1024]
    // for i < 2^20, then P_i = Q_(i mod 2^20) + seeds[2048 + i / 2^20]; one affine addition (one
    // inversion) per point.
    // Several point sets in one context (one set of scratch buffers for all): reserve_points(total) makes
    // room for |total| points (contents undefined until written; earlier points are lost), upload_points_at
    // writes |points| from index |first|, and run_uploaded_range runs over the points from |first_point|.
    void reserve_points(size_t total);
    void upload_points_at(size_t first, std::span<const ec::affine_t<F>> points);
    void generate_points(size_t n, std::span<const ec::affine_t<F>> seeds);
    // Precomputed window multiples: for a window width |c| (0: chosen from size()), stores 2^(w c) P_i for
    // every resident point P_i and each of the W = ceil(256 / c) windows, so that a run puts every window's
    // digit of a scalar into one set of 2^(c-1) buckets: W times the points' memory, in exchange for one
    // window's bucket reduction instead of W and wider windows (fewer additions) than that reduction allows
    // otherwise. Returns the width, or 0 (nothing done) where the W copies of the points would take more
    // than |max_bytes| (the old copy is freed only once they are made: the peak is W + 1 copies). Points written afterwards (upload, reserve, generate) drop the multiples.
    // Runs use them where msm_options::use_multiples and the cost model prefer them (msm_report::multiples).
    unsigned precompute_window_multiples(unsigned c = 0, size_t max_bytes = SIZE_MAX);
    unsigned multiples_window() const;  // 0: none
    // Bounds (roughly: the sizes of a run's buffers are estimated ahead) the device memory runs take beyond the
    // points: Pippenger's windows then go in passes of as many as fit, each pass sorting, accumulating and
    // reducing its windows with scratch for them alone (the same additions, a digit pass per pass), and the
    // multiples are used only where all their windows fit one pass. At least one window per pass whatever
    // the limit. 0 (the default): no bound, every window in one pass. Scratch already held is not freed.
    void set_scratch_limit(size_t bytes);
    // Device memory held now beyond the points: scalars and every scratch buffer (they only grow).
    size_t scratch_bytes() const;
    // Frees every scratch buffer now (runs grow them again): before a scratch plan that must count on the
    // memory they hold being free, e.g. after an allocation failed.
    void release_scratch();
    // What a run of |n| scalars, |m| of them through Pippenger at the default width, takes beyond the points
    // with |windows_per_pass| windows per pass (0: all), by the estimate set_scratch_limit sizes passes with.
    static size_t scratch_estimate(size_t n, size_t m, unsigned windows_per_pass = 0);
    // Points in host memory instead of the device (a GPU without room for them all): of the context's |n|
    // points the first |resident| stay on the device (written by upload_points_at or upload_packed_at after
    // this call) and |packed| holds the others, points [resident, n), in the device layout (pack_points: x then
    // y, 2 sizeof(F) bytes; the identity all zeros), page-locked by the caller for copies at the link's rate
    // (pageable works, slower), and kept unchanged at that address until the points are replaced or the
    // context goes. The device copy of the points is freed (room is made for |resident| points and the two
    // segment buffers). A run's range is split there: its resident part runs as on the device, its host part
    // streams through two device buffers of |segment| points, the copy of the next segment beside the kernels of
    // the current one, one MSM per segment, their sums added on the host (each segment pays its own bucket
    // reduction: larger segments cost less, two of them take 4 sizeof(F) bytes per point of device memory).
    // No window multiples. reserve_points, upload_points and generate_points bring all the points back to the
    // device (upload_points_at alone refuses beyond the resident ones while the rest are in host memory).
    void use_host_points(const void* packed, size_t n, size_t segment, size_t resident = 0);
    // With points in host memory: starts copying, on the context's copy stream, the first segment that a later
    // run_uploaded_range(first_point, n) streams, and returns; that run then starts at its kernels instead of
    // waiting for the copy (the partition's H MSM: its first segment lands under H's transforms, which run on
    // another context's streams). A streamed run of any other range drops it (overwriting the buffer, after the
    // copy); where the points are on the device or the range lies within the resident ones, nothing is done.
    void prefetch_range(size_t first_point, size_t n);
    // With points in host memory: a streamed segment whose run reads at most SPARSE_COPY_MAX_SHARE (0.75) of its
    // points, those with a scalar other than 0, gets them alone, gathered by a kernel reading the host copy in
    // place (msm_sparse_stream.cuh: the L, A and B scalars of PoRep are about half zeros, and their streamed MSMs
    // are bound by the link), instead of the whole segment's copy. Needs the host copy page-locked and mapped into
    // the device's address space when use_host_points or this is called (cuda::host_pin with |mapped|, or
    // cudaHostAlloc; sparse_streaming_available); otherwise every segment is copied whole, as with it off (the
    // default). msm_report::sparse_segments counts the segments gathered.
    void set_sparse_streaming(bool on);
    bool sparse_streaming_available() const;
    // Segments the runs of this context streamed since it was made, and of them those gathered sparse.
    msm_stream_totals streamed_totals() const;
    bool host_points() const;
    // The points on the device: size(), or the |resident| of use_host_points.
    size_t resident_points() const;
    // Writes |count| points already in the device layout (pack_points) at |packed| from index |first| on, as
    // upload_points_at does from affine points.
    void upload_packed_at(size_t first, const void* packed, size_t count);
    // |pts| into |out| (2 sizeof(F) bytes per point) in the layout use_host_points reads.
    static void pack_points(std::span<const ec::affine_t<F>> pts, void* out);
    // The resident points, in that layout, into |out| (size() points; benchmarks move generated points to host).
    void download_points_packed(void* out) const;
    // Copies the resident points back (for checks of generated points against the CPU).
    std::vector<ec::affine_t<F>> download_points() const;
    size_t size() const;

    // sum_i scalars[i] * points[i]; scalars.size() must not exceed size(). Uploads the scalars.
    ec::jacobian_t<F> run(std::span<const ff::fr_t> scalars, msm_report* report = nullptr,
                          const msm_options& opt = {});
    // Two halves of run(), so the upload can be timed apart from the MSM.
    void upload_scalars(std::span<const ff::fr_t> scalars);
    // As upload_scalars, from |n| scalars already in device memory of this context's device (e.g. an NTT
    // slot, ntt_context::device_data): a device-to-device copy, no PCIe. The source must be complete
    // (its producer synchronised) before the call.
    void upload_scalars_device(const ff::fr_t* device_scalars, size_t n);
    // As upload_scalars_device without the copy: runs read the |n| scalars straight from |device_scalars|
    // (this context's device; complete before the call, as above), which must stay there unchanged until the
    // last run over them returns. The next upload_scalars or upload_scalars_device replaces them.
    void use_scalars_device(const ff::fr_t* device_scalars, size_t n);
    // Where the scalars the next run reads are in device memory (this context's upload, or the address given to
    // use_scalars_device; null before either): another context on the same device may read them in place
    // (its use_scalars_device) while they stay unchanged, e.g. B_G1's MSM those uploaded for B_G2.
    const ff::fr_t* scalars_device() const;
    ec::jacobian_t<F> run_uploaded(size_t n, msm_report* report = nullptr, const msm_options& opt = {});
    // sum_(i < n) scalars[i] * points[first_point + i], with the scalars uploaded.
    ec::jacobian_t<F> run_uploaded_range(size_t first_point, size_t n, msm_report* report = nullptr,
                                         const msm_options& opt = {});
    // run_uploaded_range for each of |first_points| with the same |n| uploaded scalars, in one run: the
    // scalars are classified, their digits made and sorted once, and each range then has its ones summed and
    // its buckets accumulated from the shared sorted pairs and reduced (a partition's L and A share the aux
    // scalars: on an H200 that saves A its classification and sorts). Equal to the separate runs; with the
    // points in host memory or window multiples present the ranges run one after another. |report| sums
    // the ranges' phases.
    std::vector<ec::jacobian_t<F>> run_uploaded_ranges(std::span<const size_t> first_points, size_t n,
                                                       msm_report* report = nullptr, const msm_options& opt = {});

    struct impl;

private:
    std::unique_ptr<impl> impl_;
};

extern template class msm_context<ff::fp_t>;
extern template class msm_context<ff::fp2_t>;

using g1_msm_context = msm_context<ff::fp_t>;
using g2_msm_context = msm_context<ff::fp2_t>;

}  // namespace cuzk::cuda
