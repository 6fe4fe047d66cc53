// The host side of the GPU MSM (msm.hpp): msm_context's state and the sequence of one run, phase by phase:
// classification (msm_classify.cuh), the one-scalars' sum (msm_ones.cuh), then per pass of Pippenger
// windows the digits and sort (msm_sort.cuh), the bucket accumulation (msm_accumulate.cuh, with the
// batch-affine rounds of msm_batch_affine.cuh and the split buckets of msm_split.cuh) and the bucket
// reduction (msm_reduce.cuh); the window sums are combined on the host (msm_combine.hpp). With the points in host
// memory, a run goes segment by segment, each copied (or only its points read gathered, msm_sparse_stream.cuh)
// beside the previous one's kernels.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpud/cuda/curve.cuh"
#include "gpud/cuda/device_buffer.cuh"
#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/msm_accumulate.cuh"
#include "gpud/cuda/msm_batch_affine.cuh"
#include "gpud/cuda/msm_classify.cuh"
#include "gpud/cuda/msm_combine.hpp"
#include "gpud/cuda/msm_digits.cuh"
#include "gpud/cuda/msm_ones.cuh"
#include "gpud/cuda/msm_pairs.cuh"
#include "gpud/cuda/msm_reduce.cuh"
#include "gpud/cuda/msm_sort.cuh"
#include "gpud/cuda/msm_sparse_stream.cuh"
#include "gpud/cuda/msm_split.cuh"
#include "gpud/cuda/msm_window.hpp"
#include "gpud/cuda/words.cuh"

namespace cuzk::cuda {

template <class F>
struct msm_context<F>::impl {
    using DF = device_field_t<F>;
    using point_t = dev_affine<DF>;
    using bucket_t = dev_xyzz<DF>;

    int device;
    stream_priority priority;
    cudaStream_t stream = nullptr;
    size_t n_points = 0;
    size_t base = 0;  // first resident point of the run in progress (run_uploaded_range)
    // The resident points, then (when multiples_c != 0) window w's multiples 2^(w c) P_i at w n_points + i
    // for w < multiples_windows (precompute_window_multiples).
    device_buffer<point_t> points;
    unsigned multiples_c = 0, multiples_windows = 0;
    size_t scratch_limit = 0;  // set_scratch_limit; 0: none
    size_t run_n = 0;          // scalars of the run_at in progress (a segment's, with host points)
    size_t ones_held = 0;      // the run's ones_scratch (0 when its ones are summed by XYZZ additions)
    // use_host_points: points [resident, n_points) in host memory (the caller's, page-locked), |points| then
    // the |resident| first points and two device buffers of |segment| points each after them; null: the points
    // resident in |points|.
    const point_t* host_points = nullptr;
    size_t resident = 0;
    size_t segment = 0;
    // Points [first, first + count) writable on the device: within the reserved buffer, and within the resident
    // points while the others are in host memory.
    void check_device_range(size_t first, size_t count) const {
        const size_t limit = host_points ? resident : points.capacity();
        if (first > limit || count > limit - first)
            throw std::invalid_argument("GPU MSM: points [" + std::to_string(first) + ", " +
                                        std::to_string(first + count) + ") beyond the " + std::to_string(limit) +
                                        (host_points ? " kept on the device (the rest are in host memory)"
                                                     : " reserved"));
    }
    cudaStream_t copy_stream = nullptr;
    cudaEvent_t copied[2] = {};
    // A later run's first streamed segment copied ahead into buffer 0 (prefetch), copied[0] recorded after it:
    // the host copy's first point and the count; 0 points: none. Any streamed run takes or drops it.
    size_t prefetched_first = 0, prefetched_count = 0;
    void make_copy_stream() {
        if (copy_stream) return;
        copy_stream = detail::new_stream(priority);
        for (auto& e : copied) CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
    // set_sparse_streaming: segments whose run reads few enough of their points get those alone
    // (msm_sparse_stream.cuh), read in place through |host_points_mapped| (the host copy's device address; null
    // where it is not mapped, and then every segment is copied whole), listed in |stream_idx| (a segment's
    // indices per buffer) with their counts in |stream_counts|.
    bool sparse_streaming = false;
    const point_t* host_points_mapped = nullptr;
    // The segments streamed and gathered by every run so far (streamed_totals).
    msm_stream_totals totals;
    device_buffer<uint32_t> stream_idx, stream_counts;
    int sm_count = 0;
    // The host copy's device address, where it is page-locked and mapped; null otherwise (use_host_points).
    static const point_t* mapped_address(const point_t* host) {
        void* dev = nullptr;
        if (cudaHostGetDevicePointer(&dev, const_cast<point_t*>(host), 0) != cudaSuccess) {
            (void)cudaGetLastError();  // pageable memory: not an error of the work
            return nullptr;
        }
        return static_cast<const point_t*>(dev);
    }
    // Segment |k| of the |n| points from |host_first| of the host copy into buffer k % 2, for scalars from
    // |scalar_first| on: by the gather where sparse streaming is on, the run allows it (msm_options::sparse_gather),
    // the copy is mapped and the scalars other than 0 are few enough (counted in |gathered|); else copied whole
    // (copy_segment).
    void stage_segment(size_t host_first, size_t scalar_first, size_t n, size_t k, bool may_gather,
                       unsigned& gathered) {
        const size_t lo = k * segment, cnt = std::min(segment, n - lo);
        if (!may_gather || !sparse_streaming || !host_points_mapped) return copy_segment(host_first, n, k);
        stream_idx.reserve(2 * segment);
        stream_counts.reserve(2);
        uint32_t* count = stream_counts.get() + k % 2;
        uint32_t* idx = stream_idx.get() + (k % 2) * segment;
        CUDA_OK(cudaMemsetAsync(count, 0, sizeof(uint32_t), copy_stream));
        nonzero_indices_kernel<<<grid_for(cnt, NONZERO_THREADS * NONZERO_ITEMS), NONZERO_THREADS, 0, copy_stream>>>(
            run_scalars() + scalar_first + lo, cnt, count, idx);
        CUDA_LAUNCH_OK("nonzero_indices_kernel");
        uint32_t listed = 0;
        // Waits for the copy stream: the previous segment's copy too, which the run about to start needs anyway.
        CUDA_OK(cudaMemcpyAsync(&listed, count, sizeof listed, cudaMemcpyDeviceToHost, copy_stream));
        CUDA_OK(cudaStreamSynchronize(copy_stream));
        if (double(listed) > SPARSE_COPY_MAX_SHARE * double(cnt)) return copy_segment(host_first, n, k);
        if (sm_count == 0) CUDA_OK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
        constexpr unsigned W = sizeof(point_t) / sizeof(uint4);
        static_assert(sizeof(point_t) % sizeof(uint4) == 0, "a point is whole 16-byte words");
        const size_t blocks = std::min<size_t>(size_t(sm_count) * GATHER_BLOCKS_PER_SM,
                                               std::max<size_t>(1, grid_for(size_t(listed) * W, GATHER_THREADS)));
        gather_points_kernel<W><<<unsigned(blocks), GATHER_THREADS, 0, copy_stream>>>(
            reinterpret_cast<const uint4*>(host_points_mapped + host_first + lo), idx, count,
            reinterpret_cast<uint4*>(points.get() + resident + (k % 2) * segment));
        CUDA_LAUNCH_OK("gather_points_kernel");
        CUDA_OK(cudaEventRecord(copied[k % 2], copy_stream));
        ++gathered;
    }
    // Segment |k| of the |n| points from |host_first| of the host copy into buffer k % 2, on the copy stream.
    void copy_segment(size_t host_first, size_t n, size_t k) {
        const size_t lo = k * segment, cnt = std::min(segment, n - lo);
        CUDA_OK(cudaMemcpyAsync(points.get() + resident + (k % 2) * segment, host_points + host_first + lo,
                                cnt * sizeof(point_t), cudaMemcpyHostToDevice, copy_stream));
        CUDA_OK(cudaEventRecord(copied[k % 2], copy_stream));
    }
    device_buffer<fr_t> scalars;
    size_t n_scalars = 0;
    // Scalars in device memory the context does not own (use_scalars_device), read instead of |scalars|; null
    // after an upload.
    const fr_t* external_scalars = nullptr;
    const fr_t* run_scalars() const { return external_scalars ? external_scalars : scalars.get(); }
    device_buffer<uint32_t> counters, one_idx, other_idx;
    device_buffer<uint32_t> keys, vals, keys_sorted, vals_sorted;
    device_buffer<uint8_t> sort_temp, head_state;
    device_buffer<bucket_t> buckets, head, tail, partial, partial2;
    device_buffer<uint32_t> tail_bucket, head_first, head_last, tail_last, long_chunks;
    // Batch-affine rounds' scratch (msm_batch_affine.cuh).
    device_buffer<uint4> ba_points, ba_products;
    device_buffer<uint32_t> ba_keys, ba_count;
    device_buffer<uint64_t> ba_paired;
    device_buffer<DF> ba_totals, ba_inverses;
    cudaEvent_t events[7] = {};
    cudaStream_t stream2 = nullptr;  // G2's batch-affine rounds' second stream, made on first use
    cudaEvent_t fork = nullptr, join = nullptr;

    // Every scratch buffer (all but the points and the uploaded scalars), one call of |v| each: the one list
    // release_scratch and scratch_bytes go through.
    template <class V>
    void for_each_scratch(V&& v) {
        v(counters), v(one_idx), v(other_idx), v(keys), v(vals), v(keys_sorted), v(vals_sorted);
        v(sort_temp), v(head_state), v(buckets), v(head), v(tail), v(partial), v(partial2);
        v(tail_bucket), v(head_first), v(head_last), v(tail_last), v(long_chunks);
        v(ba_points), v(ba_products), v(ba_keys), v(ba_count), v(ba_paired), v(ba_totals), v(ba_inverses);
        v(stream_idx), v(stream_counts);
    }
    // Frees the scratch of earlier runs (it grows again on the next run): before the window multiples'
    // table, the largest allocation a context makes, so it does not have to fit beside scratch sized for
    // another window width.
    void release_scratch() {
        for_each_scratch([](auto& b) { b.release(); });
    }

    impl(int dev, stream_priority p) : device(dev), priority(p) {
        CUDA_OK(cudaSetDevice(device));
        stream = detail::new_stream(priority);
    }
    ~impl() {
        for (auto e : events) {
            if (e) cudaEventDestroy(e);
        }
        for (auto e : copied) {
            if (e) cudaEventDestroy(e);
        }
        if (copy_stream) cudaStreamDestroy(copy_stream);
        for (auto e : affine_events) cudaEventDestroy(e);
        if (fork) cudaEventDestroy(fork);
        if (join) cudaEventDestroy(join);
        if (stream2) cudaStreamDestroy(stream2);
        if (stream) cudaStreamDestroy(stream);
    }

    // Phase boundaries for msm_options::timing: 0 start, 1 classified, 2 ones summed, 3 sorted,
    // 4 buckets complete, 5 window sums, 6 end.
    bool timing = false;
    void mark(int i) {
        if (timing) CUDA_OK(cudaEventRecord(events[i], stream));
    }
    // msm_report::ms_affine: an event after each batch-affine launch (one stream), named by the kind of
    // kernel it closes; the events are a pool kept for the next runs.
    std::vector<cudaEvent_t> affine_events;
    std::vector<int> affine_kinds;  // per recorded event; -1 for the opening one
    bool affine_timing = false;
    void affine_mark(int kind, cudaStream_t st) {
        if (!affine_timing) return;
        if (affine_kinds.size() == affine_events.size()) {
            cudaEvent_t e;
            CUDA_OK(cudaEventCreate(&e));
            affine_events.push_back(e);
        }
        CUDA_OK(cudaEventRecord(affine_events[affine_kinds.size()], st));
        affine_kinds.push_back(kind);
    }
    // After the pass's events are complete: the times between consecutive marks, added up by kind.
    void collect_affine_times(msm_report& rep) {
        for (size_t i = 1; i < affine_kinds.size(); ++i) {
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, affine_events[i - 1], affine_events[i]));
            rep.ms_affine[affine_kinds[i]] += ms;
        }
        affine_kinds.clear();
    }

    // Sums |groups| runs of |per| items in |partial| down to one item per group, alternating between
    // |partial| and |partial2|; returns where the sums are.
    bucket_t* group_sums(size_t groups, size_t per) {
        bucket_t* src = partial.get();
        while (per > 1) {
            size_t out_per = (per + GROUP_SUM - 1) / GROUP_SUM;
            bucket_t* dst = src == partial.get() ? partial2.get() : partial.get();
            group_sum_kernel<DF><<<grid_for(groups * out_per, 128), 128, 0, stream>>>(src, groups, per, out_per, dst);
            CUDA_LAUNCH_OK("group_sum_kernel");
            src = dst;
            per = out_per;
        }
        return src;
    }

    static constexpr bool is_g1 = std::is_same_v<DF, fp_t>;
    // The field type the accumulation computes with, of DF's layout: for G1 fp_inlined_t, the
    // multiplications inlined rather than called (msm_accumulate.cuh).
    using AF = std::conditional_t<is_g1, fp_inlined_t, DF>;

    // Whether the buckets of |pairs| sorted pairs in |buckets| buckets go through the batch-affine rounds:
    // G2's always; G1's where runs per bucket are long (msm_window.hpp, affine_runs_pay), unless |how| forces
    // one way.
    static bool affine_by_default(size_t pairs, size_t buckets) {
        return !is_g1 || affine_runs_pay(pairs, buckets);
    }
    static bool buckets_batch_affine(msm_sum how, size_t pairs, size_t buckets) {
        if (how == msm_sum::xyzz && !is_g1)
            throw std::invalid_argument("GPU MSM: G2's buckets have no XYZZ accumulation, only the batch-affine one");
        return how == msm_sum::by_size ? affine_by_default(pairs, buckets) : how == msm_sum::batch_affine;
    }

    // G1's mixed XYZZ accumulation (accumulate_xyzz_kernel), |chunk| sorted pairs per thread.
    void accumulate_xyzz(size_t chunks, const point_t* pts, size_t total, unsigned chunk, unsigned c) {
        if constexpr (is_g1) {
            accumulate_xyzz_kernel<DF, AF><<<grid_for(chunks, ACC_THREADS), ACC_THREADS, 0, stream>>>(
                pts, keys_sorted.get(), vals_sorted.get(), total, chunk, c, buckets.get(), head.get(),
                head_state.get(), tail.get(), tail_bucket.get());
            CUDA_LAUNCH_OK("accumulate_xyzz_kernel");
        }
    }

    // Sorted pairs per batch of the batch-affine rounds, for a run and pass holding |pass_bytes| beside them
    // (fixed_scratch, window_scratch). Each pair takes the point slots (x, y), the key and half a product in
    // each of two product buffers (a round's and the next one's). Under a scratch limit, the batches' two
    // scratch sets take what the pass leaves of it (at least an eighth of it, as scratch_estimate counts on;
    // at most their size without a limit). Why not an eighth always: the partition's B_G2 (44M points, 4.4M
    // random, 70M sorted pairs) had a 7.7 GiB limit on an H200, and sets of 1.8M pairs made 40 batches whose
    // launches filled under half of the GPU.
    size_t affine_batch_pairs(size_t pass_bytes) const {
        constexpr size_t ba_pair_bytes = sizeof(point_t) + 4 + sizeof(DF);
        const size_t ba_left = scratch_limit > pass_bytes ? (scratch_limit - pass_bytes) / 2 : 0;
        const size_t ba_bytes =
            scratch_limit ? std::min(BATCH_AFFINE_BYTES, std::max(ba_left, scratch_limit / 16)) : BATCH_AFFINE_BYTES;
        return std::max<size_t>(1, ba_bytes / ba_pair_bytes);
    }

    // The batch-affine rounds (msm_batch_affine.cuh): |rounds| pair rounds per chunk, then the rest by XYZZ
    // additions. Chunks go through in batches of at most |batch_pairs| sorted pairs, so the scratch (~148
    // bytes per pair for G1) stays bounded whatever the MSM's size, with two scratch sets when there are
    // several batches. The batches' kernels are sequenced per group as measured (msm_accumulate.cuh): G1 on
    // one stream, a batch's rest in the launch of the next batch's round-0 pairs; G2 alternating between two
    // streams, one batch's memory- and latency-bound kernels beside the other's multiplications; batches write
    // disjoint chunks' results, so |stream| only waits for both at the end. Each later round's pairs are made
    // in a pass of their own.
    void accumulate_batch_affine(size_t chunks, const point_t* pts, size_t total, unsigned chunk, unsigned c,
                                 unsigned rounds, size_t batch_pairs) {
        namespace ba = batch_affine;
        static_assert(AFFINE_CHUNK <= ba::MAX_CHUNK, "a chunk's pairing marks hold MAX_CHUNK pairs");
        constexpr int W = words_of<DF>;
        const size_t segs = std::min(chunks, std::max<size_t>(1, batch_pairs / chunk));
        const size_t slots = segs * chunk, pair_slots = segs * std::max(1u, chunk / 2);
        // Two scratch sets when there are several batches: one batch's rest runs beside the next one's
        // round-0 pairs (G1) or on the other stream (G2).
        const int sets = chunks > segs ? 2 : 1;
        ba_points.reserve(sets * 2 * W * slots);
        ba_keys.reserve(sets * slots);
        ba_products.reserve(sets * 2 * W * pair_slots);
        ba_count.reserve(sets * segs);
        ba_paired.reserve(sets * ba::MARK_WORDS * segs);
        ba_totals.reserve(sets * segs);
        ba_inverses.reserve(sets * segs);
        ba::scratch sc[2];
        for (int i = 0; i < sets; ++i) {
            sc[i].chunk = chunk;
            sc[i].segs = segs;
            sc[i].slots = slots;
            sc[i].pair_slots = pair_slots;
            sc[i].points = ba_points.get() + i * 2 * W * slots;
            sc[i].keys = ba_keys.get() + i * slots;
            sc[i].products[0] = ba_products.get() + (2 * i) * W * pair_slots;
            sc[i].products[1] = ba_products.get() + (2 * i + 1) * W * pair_slots;
            sc[i].count = ba_count.get() + i * segs;
            sc[i].paired = ba_paired.get() + i * ba::MARK_WORDS * segs;
        }
        const auto* apts = reinterpret_cast<const dev_affine<AF>*>(pts);
        using P = dev_xyzz<AF>;
        const chunk_results<P> out{reinterpret_cast<P*>(buckets.get()), reinterpret_cast<P*>(head.get()),
                                   head_state.get(), reinterpret_cast<P*>(tail.get()), tail_bucket.get()};
        const uint32_t *ks = keys_sorted.get(), *vs = vals_sorted.get();
        constexpr unsigned T = BATCH_AFFINE_THREADS;
        constexpr bool rest_beside_pairs = is_g1;
        const bool two_streams = !rest_beside_pairs && sets == 2;
        if (two_streams && !stream2) {
            stream2 = detail::new_stream(priority);
            CUDA_OK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
            CUDA_OK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
        }
        // Round r's sums, then round r + 1's pairs. Round 0's sums walk step by step with their registers
        // capped for G1, in lockstep for G2; the later rounds' in lockstep (msm_accumulate.cuh).
        auto sums = [&](unsigned r, const ba::scratch& s, size_t k0, size_t nseg, const AF* inverses, AF* totals,
                        cudaStream_t st) {
            const unsigned grid = grid_for(nseg, T);
            if (r == 0) {
                if constexpr (is_g1)
                    ba::pair_sums_capped_kernel<AF>
                        <<<grid, T, 0, st>>>(s, apts, ks, vs, total, k0, nseg, c, r, inverses);
                else
                    ba::pair_sums_kernel<AF, true, true, true>
                        <<<grid, T, 0, st>>>(s, apts, ks, vs, total, k0, nseg, c, r, inverses);
            } else if (ba::walks_forward(r)) {
                ba::pair_sums_kernel<AF, false, true, true>
                    <<<grid, T, 0, st>>>(s, apts, ks, vs, total, k0, nseg, c, r, inverses);
            } else {
                ba::pair_sums_kernel<AF, false, false, true>
                    <<<grid, T, 0, st>>>(s, apts, ks, vs, total, k0, nseg, c, r, inverses);
            }
            CUDA_LAUNCH_OK("pair_sums_kernel");
            affine_mark(msm_report::AFFINE_SUMS, st);
            if (r + 1 < rounds) {
                if (ba::walks_forward(r)) {
                    ba::pair_products_slots_kernel<AF, true><<<grid, T, 0, st>>>(s, total, k0, nseg, r + 1, totals);
                } else {
                    ba::pair_products_slots_kernel<AF, false><<<grid, T, 0, st>>>(s, total, k0, nseg, r + 1, totals);
                }
                CUDA_LAUNCH_OK("pair_products_slots_kernel");
                affine_mark(msm_report::AFFINE_PAIRS, st);
            }
        };
        auto rest = [&](int set, size_t k0, size_t nseg, cudaStream_t st) {
            ba::accumulate_rest_kernel<AF>
                <<<grid_for(nseg, T), T, 0, st>>>(sc[set], ks, total, k0, nseg, c, rounds, out);
            CUDA_LAUNCH_OK("accumulate_rest_kernel");
            affine_mark(msm_report::AFFINE_REST, st);
        };
        if (two_streams) {
            CUDA_OK(cudaEventRecord(fork, stream));
            CUDA_OK(cudaStreamWaitEvent(stream2, fork, 0));
        }
        affine_timing = timing && !two_streams;
        affine_kinds.clear();
        affine_mark(-1, stream);
        size_t prev_k0 = 0, prev_nseg = 0;
        int prev = -1;
        for (size_t k0 = 0, b = 0; k0 < chunks; k0 += segs, ++b) {
            const int i = int(b % 2);
            const cudaStream_t st = two_streams && i == 1 ? stream2 : stream;
            auto* totals = reinterpret_cast<AF*>(ba_totals.get() + i * segs);
            auto* inverses = reinterpret_cast<AF*>(ba_inverses.get() + i * segs);
            const size_t nseg = std::min(segs, chunks - k0);
            const unsigned grid = grid_for(nseg, T);
            bool first_pairs_made = false;
            if constexpr (rest_beside_pairs) {  // G1 only: no such kernel for G2
                if (prev >= 0) {
                    const unsigned rest_grid = grid_for(prev_nseg, T);
                    ba::rest_and_pairs_kernel<AF><<<rest_grid + grid, T, 0, st>>>(
                        sc[prev], prev_k0, prev_nseg, rounds, out, sc[i], apts, ks, vs, total, k0, nseg, c, totals,
                        rest_grid, grid);
                    CUDA_LAUNCH_OK("rest_and_pairs_kernel");
                    first_pairs_made = true;
                }
            } else if (prev >= 0 && !two_streams) {
                rest(prev, prev_k0, prev_nseg, st);
            }
            if (!first_pairs_made) {
                ba::pair_products_kernel<AF><<<grid, T, 0, st>>>(sc[i], apts, ks, vs, total, k0, nseg, c, totals);
                CUDA_LAUNCH_OK("pair_products_kernel");
            }
            affine_mark(msm_report::AFFINE_FIRST_PAIRS, st);
            for (unsigned r = 0; r < rounds; ++r) {
                ba::invert_totals_kernel<AF><<<grid_for(nseg, T * ba::INVERT_GROUP), T, 0, st>>>(
                    totals, inverses, nseg, ba::INVERT_GROUP);
                CUDA_LAUNCH_OK("invert_totals_kernel");
                affine_mark(msm_report::AFFINE_INVERT, st);
                sums(r, sc[i], k0, nseg, inverses, totals, st);
            }
            if (two_streams) rest(i, k0, nseg, st);
            prev = i;
            prev_k0 = k0;
            prev_nseg = nseg;
        }
        if (two_streams) {
            CUDA_OK(cudaEventRecord(join, stream2));
            CUDA_OK(cudaStreamWaitEvent(stream, join, 0));
        } else {
            rest(prev, prev_k0, prev_nseg, stream);
        }
    }

    // Windows per Pippenger pass under scratch_limit, for |m| scalars through Pippenger at width |c|. What a
    // run of n scalars holds whatever the passes: the scalars and the classification's indices (40 bytes per
    // scalar), one window's sort scratch (~8 bytes per pair); per window of a pass: the
    // keys and values, unsorted and sorted (16 bytes per pair), the chunk results (two buckets and 21 bytes
    // per chunk) and the window's buckets. At least one window per pass, whatever the limit. The chunk results
    // are counted for 64-pair chunks, the smallest any accumulation took when the limits were set and
    // measured: twice what the 128-pair chunks take, a margin kept so the passes stay as planned.
    static size_t fixed_scratch(size_t n, size_t m) { return n * (sizeof(fr_t) + 8) + m * 8; }
    static size_t window_scratch(size_t m, unsigned c) {
        constexpr size_t estimate_chunk = 64;
        return m * (16 + (2 * sizeof(bucket_t) + 21) / estimate_chunk + 1) +
               (size_t(1) << (c - 1)) * sizeof(bucket_t);
    }
    // The one-scalars' batch-affine sum (sum_ones) grows buffers the passes reuse: its sorted keys and values
    // and its chunks' results. Counted beside the passes' own (windows_per_pass, the passes' batch-affine
    // sets), so a run stays under the limit whichever phase grew a buffer most.
    static size_t ones_scratch(size_t ones) {
        const size_t chunks = (ones + AFFINE_CHUNK - 1) / AFFINE_CHUNK;
        return ones * 2 * sizeof(uint32_t) + chunks * (2 * sizeof(bucket_t) + 21);
    }
    unsigned windows_per_pass(size_t m, unsigned c, unsigned windows) const {
        if (scratch_limit == 0) return windows;
        const size_t fixed = fixed_scratch(run_n, m) + ones_held;
        const size_t fit = scratch_limit > fixed ? (scratch_limit - fixed) / window_scratch(m, c) : 0;
        return unsigned(std::clamp<size_t>(fit, 1, windows));
    }

    // The sum of the points whose scalar is one, as an XYZZ bucket in device memory. Few of them: mixed XYZZ
    // additions, ~16 per thread, the partial sums reduced on the device. Many (|affine|): the points as one
    // bucket through the batch-affine rounds, the sorted pairs being all key 0 (bucket 0 of window 0 at any
    // width) with the points' indices as values, and the split-bucket passes joining the chunks' results
    // (on an H200, 2^27 PoRep-like scalars, 60.4M ones: 21.8 ms against 27.2 by XYZZ additions; msm_ones.cuh).
    // |pass_bytes|: what the run holds beside the rounds' scratch (affine_batch_pairs).
    bucket_t* sum_ones(const point_t* pts, size_t ones, bool affine, size_t pass_bytes) {
        if (!affine) {
            // Enough warps to hide the latency of the chained additions: at most 2^17 threads.
            size_t threads = std::min<size_t>(size_t(1) << 17, (ones + 15) / 16);
            const size_t per_thread = (ones + threads - 1) / threads;
            threads = (ones + per_thread - 1) / per_thread;
            partial.reserve(std::max<size_t>(threads, 1));
            partial2.reserve(std::max<size_t>((threads + GROUP_SUM - 1) / GROUP_SUM, 1));
            sum_indexed_kernel<DF><<<grid_for(threads, 128), 128, 0, stream>>>(pts, one_idx.get(), ones, per_thread,
                                                                               partial.get(), threads);
            CUDA_LAUNCH_OK("sum_indexed_kernel");
            return group_sums(1, threads);
        }
        constexpr unsigned chunk = AFFINE_CHUNK, key_bits = 2;
        keys_sorted.reserve(ones);
        vals_sorted.reserve(ones);
        CUDA_OK(cudaMemsetAsync(keys_sorted.get(), 0, ones * sizeof(uint32_t), stream));
        CUDA_OK(cudaMemcpyAsync(vals_sorted.get(), one_idx.get(), ones * sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                                stream));
        buckets.reserve(1);
        CUDA_OK(cudaMemsetAsync(buckets.get(), 0, sizeof(bucket_t), stream));  // zz = 0: identity
        const size_t chunks = (ones + chunk - 1) / chunk;
        head.reserve(chunks);
        tail.reserve(chunks);
        head_state.reserve(chunks);
        tail_bucket.reserve(chunks);
        accumulate_batch_affine(chunks, pts, ones, chunk, key_bits, ONES_AFFINE_ROUNDS, affine_batch_pairs(pass_bytes));
        CUDA_LAUNCH_OK("batch-affine ones");
        affine_kinds.clear();  // msm_report::ms_affine times the Pippenger passes' rounds only
        finish_split_buckets(ones, chunk, chunks);
        return buckets.get();
    }

    // The split buckets (msm_split.cuh) of an accumulation of |total| sorted pairs in |chunks| chunks of
    // |chunk|: bounds, the short splits' sums, the long splits' pairwise passes; afterwards every bucket
    // is whole in |buckets|.
    void finish_split_buckets(size_t total, unsigned chunk, size_t chunks) {
        head_first.reserve(chunks);
        head_last.reserve(chunks);
        tail_last.reserve(chunks);
        const split::splits<bucket_t> sp{head_state.get(), tail_bucket.get(), head_first.get(), head_last.get(),
                                         tail_last.get(),   head.get(),        tail.get(),       buckets.get()};
        long_chunks.reserve(chunks);
        CUDA_OK(cudaMemsetAsync(counters.get(), 0, 2 * sizeof(uint32_t), stream));
        split::split_bounds_kernel<<<grid_for(chunks, 128), 128, 0, stream>>>(keys_sorted.get(), total, chunk, chunks,
                                                                              sp, counters.get(), long_chunks.get());
        CUDA_LAUNCH_OK("split_bounds_kernel");
        split::sum_short_kernel<<<grid_for(chunks, 128), 128, 0, stream>>>(chunks, sp);
        CUDA_LAUNCH_OK("sum_short_kernel");
        uint32_t longs[2] = {};  // the longest long split's reach, the chunks listed
        CUDA_OK(cudaMemcpyAsync(longs, counters.get(), sizeof longs, cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        if (longs[1] > 0) {
            for (uint32_t step = 1; step <= longs[0]; step *= 2) {
                split::combine_pass_kernel<<<grid_for(longs[1], 128), 128, 0, stream>>>(long_chunks.get(), longs[1],
                                                                                        step, sp);
                CUDA_LAUNCH_OK("combine_pass_kernel");
            }
            split::write_split_kernel<<<grid_for(longs[1], 128), 128, 0, stream>>>(long_chunks.get(), longs[1], sp);
            CUDA_LAUNCH_OK("write_split_kernel");
        }
    }

    // One pass of Pippenger over windows [w0, w0 + group) of |windows| (all of them with the multiples), in two
    // halves: sort_pass makes the digits and sorts them (the sorted pairs depend on the scalars alone), then
    // accumulate_pass, once per point range, accumulates, joins the split buckets and reduces, appending the
    // pass's window sums to |host_sums|.
    void sort_pass(const fr_t* sc, size_t m, const window_split& split, unsigned w0, unsigned group,
                   bool multiples) {
        const unsigned c = split.width(w0);
        const unsigned sum_windows = multiples ? 1 : group;  // sets of buckets
        const size_t total = size_t(group) * m;
        keys.reserve(total);
        vals.reserve(total);
        keys_sorted.reserve(total);
        vals_sorted.reserve(total);
        digits_kernel<<<grid_for(m, 256), 256, 0, stream>>>(sc, other_idx.get(), m, split,
                                                             w0, group, keys.get(), vals.get(),
                                                             multiples ? uint32_t(n_points) : 0,
                                                             multiples ? uint32_t(base) : 0);
        CUDA_LAUNCH_OK("digits_kernel");
        // One sort per set of buckets: per window, or all the pairs at once with the multiples
        // (precompute_window_multiples keeps windows x points below 2^31, cub's item count).
        sort_pairs(sort_temp, keys.get(), keys_sorted.get(), vals.get(), vals_sorted.get(), multiples ? total : m,
                   sum_windows, m, c, stream);
        mark(3);
    }

    // Reads the sorted pairs of sort_pass and leaves them unchanged (the accumulation kernels and the split
    // bounds only read keys_sorted and vals_sorted), so the next point range reuses them.
    void accumulate_pass(const msm_options& opt, size_t m, unsigned c, unsigned group, bool multiples,
                         const point_t* pts, msm_report& rep, std::vector<bucket_t>& host_sums) {
        const unsigned sum_windows = multiples ? 1 : group;  // sets of buckets
        const uint32_t B = 1u << (c - 1);
        const size_t total = size_t(group) * m;
        // The sorted values index from the first multiple of the first resident point with the multiples.
        const point_t* acc_pts = multiples ? points.get() : pts;
        const size_t nbuckets = size_t(sum_windows) * B;
        buckets.reserve(nbuckets);
        CUDA_OK(cudaMemsetAsync(buckets.get(), 0, nbuckets * sizeof(bucket_t), stream));  // zz = 0: identity
        const bool affine = buckets_batch_affine(opt.buckets, total, nbuckets);
        rep.batch_affine = affine;
        const unsigned chunk = affine ? AFFINE_CHUNK : XYZZ_CHUNK;
        const size_t chunks = (total + chunk - 1) / chunk;
        head.reserve(chunks);
        tail.reserve(chunks);
        head_state.reserve(chunks);
        tail_bucket.reserve(chunks);
        if (affine) {
            accumulate_batch_affine(
                chunks, acc_pts, total, chunk, c, is_g1 ? G1_AFFINE_ROUNDS : G2_AFFINE_ROUNDS,
                affine_batch_pairs(fixed_scratch(run_n, m) + ones_held + size_t(group) * window_scratch(m, c)));
        } else {
            accumulate_xyzz(chunks, acc_pts, total, chunk, c);
        }
        finish_split_buckets(total, chunk, chunks);
        mark(4);
        // Segment length L: the largest power of two <= windows B / REDUCE_THREADS, in [1, 64]. Each
        // thread does 2L additions then a multiplication by q L (log2(B) doublings), so short segments
        // cost more work in all but give the parallelism a latency-bound chain of additions needs.
        uint32_t L = 1;
        while (L < MAX_SEGMENT && L < B && size_t(sum_windows) * B / (2 * L) >= REDUCE_THREADS) L *= 2;
        const size_t segs = B / L;
        partial.reserve(sum_windows * segs);
        partial2.reserve(std::max<size_t>(sum_windows * ((segs + GROUP_SUM - 1) / GROUP_SUM), 1));
        reduce_segments_kernel<DF><<<grid_for(sum_windows * segs, 128), 128, 0, stream>>>(
            buckets.get(), sum_windows, B, L, partial.get());
        CUDA_LAUNCH_OK("reduce_segments_kernel");
        bucket_t* sums = group_sums(sum_windows, segs);
        mark(5);
        const size_t at = host_sums.size();  // window sums in window order, pass after pass
        host_sums.resize(at + sum_windows);
        CUDA_OK(cudaMemcpyAsync(host_sums.data() + at, sums, sum_windows * sizeof(bucket_t),
                                cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
    }

    ec::jacobian_t<F> run(size_t n, msm_report* report, const msm_options& opt) {
        CUDA_OK(cudaSetDevice(device));
        if (base > n_points || n > n_points - base) {
            throw std::invalid_argument("GPU MSM: " + std::to_string(n) + " scalars from point " +
                                        std::to_string(base) + " but only " + std::to_string(n_points) +
                                        " resident points");
        }
        if (n > n_scalars) throw std::invalid_argument("GPU MSM: fewer scalars uploaded than requested");
        if (!host_points) return run_at(points.get() + base, run_scalars(), n, report, opt);
        // Split where the resident points end: the resident part as on the device, the rest streamed.
        const size_t on_device = base < resident ? std::min(n, resident - base) : 0;
        ec::jacobian_t<F> acc;
        msm_report all, r;
        if (on_device > 0) {
            acc = run_at(points.get() + base, run_scalars(), on_device, &r, opt);
            accumulate_report(all, r);
        }
        if (on_device < n) {
            acc = detail::add_sums<F>(acc, run_streamed(base + on_device - resident, on_device, n - on_device, &r, opt));
            accumulate_report(all, r);
        }
        if (report) *report = all;
        return acc;
    }

    // Points in host memory (use_host_points): |n| points from |host_first| of the host copy against the scalars
    // from |scalar_first| on, in segments through the two device buffers after the resident points, segment
    // k + 1 copied on |copy_stream| while segment k's kernels run. Buffer (k + 1) % 2 is free by then: run_at
    // returns only once its kernels are done. Segment 0 is in buffer 0 already where prefetch copied it. The
    // segments' sums add up on the host.
    ec::jacobian_t<F> run_streamed(size_t host_first, size_t scalar_first, size_t n, msm_report* report,
                                   const msm_options& opt) {
        make_copy_stream();
        point_t* buffers = points.get() + resident;
        const size_t segs = (n + segment - 1) / segment;
        const bool ahead =
            segs > 0 && prefetched_count == std::min(segment, n) && prefetched_first == host_first;
        prefetched_count = 0;  // taken, or overwritten below
        ec::jacobian_t<F> acc;
        msm_report all;
        unsigned gathered = 0;
        if (segs > 0 && !ahead) stage_segment(host_first, scalar_first, n, 0, opt.sparse_gather, gathered);
        for (size_t k = 0; k < segs; ++k) {
            if (k + 1 < segs) stage_segment(host_first, scalar_first, n, k + 1, opt.sparse_gather, gathered);
            CUDA_OK(cudaStreamWaitEvent(stream, copied[k % 2], 0));
            const size_t lo = k * segment, cnt = std::min(segment, n - lo);
            msm_report r;
            acc = detail::add_sums<F>(
                acc, run_at(buffers + (k % 2) * segment, run_scalars() + scalar_first + lo, cnt, &r, opt));
            accumulate_report(all, r);
        }
        all.segments = unsigned(segs);
        all.sparse_segments = gathered;
        totals.segments += segs;
        totals.sparse_segments += gathered;
        all.prefetched = ahead;
        if (report) *report = all;
        return acc;
    }

    // The first segment a run of |n| points from resident index |first_point| streams, copied now (msm.hpp:
    // prefetch_range). Nothing to do where the points are on the device or the range lies within the resident
    // ones. Buffer 0 is free: no run is in flight between calls (each returns once its kernels are done).
    void prefetch(size_t first_point, size_t n) {
        if (!host_points || n == 0) return;
        if (first_point > n_points || n > n_points - first_point)
            throw std::invalid_argument("GPU MSM: prefetch of " + std::to_string(n) + " points from point " +
                                        std::to_string(first_point) + " but only " + std::to_string(n_points));
        const size_t on_device = first_point < resident ? std::min(n, resident - first_point) : 0;
        if (on_device == n) return;
        CUDA_OK(cudaSetDevice(device));
        make_copy_stream();
        const size_t host_first = first_point + on_device - resident, streamed = n - on_device;
        prefetched_count = 0;
        copy_segment(host_first, streamed, 0);
        prefetched_first = host_first;
        prefetched_count = std::min(segment, streamed);
    }

    // The MSM of |n| scalars at |sc| against the points at |pts| (device memory).
    ec::jacobian_t<F> run_at(const point_t* pts, const fr_t* sc, size_t n, msm_report* report,
                             const msm_options& opt) {
        const point_t* one[1] = {pts};
        return run_ranges(one, sc, n, report, opt).front();
    }

    // The MSMs of the same |n| scalars at |sc| against each of the point ranges |ranges| (device memory): the
    // classification, the Pippenger plan, the digits and their sorts are made once; each range then has its
    // ones summed, its buckets accumulated from the shared sorted pairs and reduced (run_uploaded_ranges).
    // With the multiples (whose digits index one range's multiples) |ranges| must be one range.
    std::vector<ec::jacobian_t<F>> run_ranges(std::span<const point_t* const> ranges, const fr_t* sc, size_t n,
                                              msm_report* report, const msm_options& opt) {
        run_n = n;
        msm_report rep;
        std::vector<ec::jacobian_t<F>> results(ranges.size());
        if (n == 0 || ranges.empty()) {
            if (report) *report = rep;
            return results;
        }
        timing = opt.timing;
        if (timing && !events[0]) {
            for (auto& e : events) CUDA_OK(cudaEventCreate(&e));
        }
        mark(0);
        counters.reserve(2);
        one_idx.reserve(n);
        other_idx.reserve(n);
        CUDA_OK(cudaMemsetAsync(counters.get(), 0, 2 * sizeof(uint32_t), stream));
        classify_kernel<<<grid_for(n, CLASSIFY_THREADS * CLASSIFY_ITEMS), CLASSIFY_THREADS, 0, stream>>>(
            sc, n, counters.get(), one_idx.get(), other_idx.get());
        CUDA_LAUNCH_OK("classify_kernel");
        mark(1);
        uint32_t cnt[2];
        CUDA_OK(cudaMemcpyAsync(cnt, counters.get(), sizeof cnt, cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        rep.ones = cnt[0];
        rep.others = cnt[1];
        rep.zeros = n - cnt[0] - cnt[1];

        // Per range: its ones sum first (if any), then one sum per window.
        std::vector<std::vector<bucket_t>> host_sums(ranges.size());
        const size_t ones = cnt[0], m = cnt[1];
        const bool ones_affine = opt.ones == msm_sum::by_size
                                     ? ones >= (is_g1 ? G1_ONES_AFFINE_MIN : G2_ONES_AFFINE_MIN)
                                     : opt.ones == msm_sum::batch_affine;
        ones_held = ones_affine ? ones_scratch(ones) : 0;
        // The Pippenger plan first: the ones' batch-affine sets are sized by what its first pass holds.
        unsigned c = 0, windows = 0, per_pass = 0;
        bool multiples = false;
        window_split split;
        if (m > 0) {
            // The precomputed multiples, where there are some, the caller allows them, the cost model prefers
            // them to the best width without (or the caller asks for their width), and all their pairs fit in
            // one pass under the memory limit.
            const unsigned pc = multiples_c;
            multiples = pc != 0 && opt.use_multiples &&
                        (opt.window_bits == pc ||
                         (opt.window_bits == 0 &&
                          multiples_cost(is_g1, m, pc) < plain_cost(is_g1, m, choose_window(is_g1, m)))) &&
                        windows_per_pass(m, pc, windows_for(pc)) == windows_for(pc);
            if (multiples && ranges.size() > 1)
                throw std::logic_error("GPU MSM: the window multiples serve one point range per run");
            c = multiples ? pc : opt.window_bits ? opt.window_bits : choose_window(is_g1, m);
            if (c < 2 || c > 24) throw std::invalid_argument("GPU MSM: window bits must be in 2..24");
            // ceil(256 / c) windows, from c = 21 on as narrow as that many allow (msm_digits.cuh, window_split);
            // the multiples are made for windows of c bits each.
            split = window_split::for_run(c, multiples || opt.uniform_windows);
            windows = split.windows;  // covering 256 bits: the top digit stays <= 2^(c-1)
            // Windows in passes of at most |per_pass| (all at once unless the memory limit says otherwise; the
            // narrower windows need less than the estimate at c), each pass of one width: each pass sorts,
            // accumulates and reduces its windows with scratch for them alone. With the multiples, one pass
            // and one set of buckets for every window.
            per_pass = multiples ? windows : windows_per_pass(m, c, windows);
        }
        // The ones' sums before any sort: the batch-affine sum uses the sorted pairs' buffers.
        if (ones > 0) {
            const size_t pass_bytes =
                fixed_scratch(run_n, m) + ones_held + (m > 0 ? size_t(per_pass) * window_scratch(m, c) : 0);
            for (size_t k = 0; k < ranges.size(); ++k) {
                bucket_t* s = sum_ones(ranges[k], ones, ones_affine, pass_bytes);
                host_sums[k].resize(1);
                CUDA_OK(cudaMemcpyAsync(host_sums[k].data(), s, sizeof(bucket_t), cudaMemcpyDeviceToHost, stream));
                CUDA_OK(cudaStreamSynchronize(stream));
            }
        }

        mark(2);
        if (m > 0) {
            rep.multiples = multiples;
            for (unsigned w0 = 0, group = 0; w0 < windows; w0 += group) {
                group = std::min(per_pass, windows - w0);
                if (w0 < split.wide) group = std::min(group, split.wide - w0);  // one width per pass
                ++rep.passes;
                if (w0 > 0) mark(2);
                sort_pass(sc, m, split, w0, group, multiples);
                for (size_t k = 0; k < ranges.size(); ++k) {
                    if (k > 0) mark(3);  // this range's accumulation starts here
                    accumulate_pass(opt, m, split.width(w0), group, multiples, ranges[k], rep, host_sums[k]);
                    if (!timing) continue;
                    CUDA_OK(cudaEventSynchronize(events[5]));
                    // Events 2 and 3 are recorded again later: the one-scalar phase and the sort are read now.
                    if (w0 == 0 && k == 0) CUDA_OK(cudaEventElapsedTime(&rep.ms_ones, events[1], events[2]));
                    float ms[3];
                    for (int i = k == 0 ? 0 : 1; i < 3; ++i)
                        CUDA_OK(cudaEventElapsedTime(&ms[i], events[2 + i], events[3 + i]));
                    if (k == 0) rep.ms_sort += ms[0];
                    rep.ms_accumulate += ms[1];
                    rep.ms_reduce += ms[2];
                    collect_affine_times(rep);
                }
            }
        }
        // Each window sum's width (the gap to the next one's bit); with the multiples the one window sum is the
        // whole Pippenger part.
        std::vector<unsigned> widths;
        for (unsigned w = 0; w < (multiples ? 1 : windows); ++w) widths.push_back(split.width(w));
        for (size_t k = 0; k < ranges.size(); ++k) {
            // Same bytes as the host XYZZ type (msm.cu asserts it).
            std::vector<ec::xyzz_t<F>> sums(host_sums[k].size());
            std::memcpy(static_cast<void*>(sums.data()), host_sums[k].data(), host_sums[k].size() * sizeof(bucket_t));
            const ec::xyzz_t<F>* ones_sum = ones > 0 ? sums.data() : nullptr;
            results[k] = detail::combine_window_sums<F>(ones_sum, sums.data() + (ones > 0 ? 1 : 0),
                                                        sums.size() - (ones > 0 ? 1 : 0), widths.data());
        }
        rep.window_bits = m > 0 ? split.c : 0;
        rep.wide_windows = m > 0 ? split.wide : 0;
        rep.windows = windows;
        if (timing) {
            mark(6);
            CUDA_OK(cudaEventSynchronize(events[6]));
            CUDA_OK(cudaEventElapsedTime(&rep.ms_classify, events[0], events[1]));
            if (m == 0) CUDA_OK(cudaEventElapsedTime(&rep.ms_ones, events[1], events[2]));
            // Without Pippenger, events 2 and 6 close the run; with it, the last pass's 5 (the passes' own
            // phases are summed above).
            CUDA_OK(cudaEventElapsedTime(&rep.ms_finish, events[m == 0 ? 2 : 5], events[6]));
        }
        if (report) *report = rep;
        return results;
    }

    // run_uploaded_ranges: the ranges at |firsts|, |n| uploaded scalars each.
    std::vector<ec::jacobian_t<F>> run_many(std::span<const size_t> firsts, size_t n, msm_report* report,
                                            const msm_options& opt) {
        CUDA_OK(cudaSetDevice(device));
        for (const size_t first : firsts) {
            if (first > n_points || n > n_points - first) {
                throw std::invalid_argument("GPU MSM: " + std::to_string(n) + " scalars from point " +
                                            std::to_string(first) + " but only " + std::to_string(n_points) +
                                            " resident points");
            }
        }
        if (n > n_scalars) throw std::invalid_argument("GPU MSM: fewer scalars uploaded than requested");
        struct reset {
            size_t& b;
            ~reset() { b = 0; }
        } r{base};
        // Streamed points are copied per range, and the multiples' digits name one range's multiples: those
        // runs go one range at a time (same results, nothing shared). Ranges all among the resident points share
        // their classification and sorts as on the device.
        const bool all_resident = std::all_of(firsts.begin(), firsts.end(), [&](size_t f) {
            return !host_points || (f <= resident && n <= resident - f);
        });
        if (!all_resident || multiples_c != 0) {
            std::vector<ec::jacobian_t<F>> out;
            msm_report all;
            for (const size_t first : firsts) {
                base = first;
                msm_report one;
                out.push_back(run(n, &one, opt));
                accumulate_report(all, one);
            }
            if (report) *report = all;
            return out;
        }
        std::vector<const point_t*> ranges;
        for (const size_t first : firsts) ranges.push_back(points.get() + first);
        return run_ranges(ranges, run_scalars(), n, report, opt);
    }

    // |all| += |r|: counts and times added, widths the largest, the kinds of sum either's.
    static void accumulate_report(msm_report& all, const msm_report& r) {
        all.zeros += r.zeros, all.ones += r.ones, all.others += r.others;
        all.window_bits = std::max(all.window_bits, r.window_bits);
        all.windows = std::max(all.windows, r.windows);
        all.wide_windows = std::max(all.wide_windows, r.wide_windows);
        all.multiples = all.multiples || r.multiples;
        all.batch_affine = all.batch_affine || r.batch_affine;
        all.passes += r.passes;
        all.segments += r.segments;
        all.prefetched = all.prefetched || r.prefetched;
        all.sparse_segments += r.sparse_segments;
        all.ms_classify += r.ms_classify, all.ms_ones += r.ms_ones, all.ms_sort += r.ms_sort;
        all.ms_accumulate += r.ms_accumulate, all.ms_reduce += r.ms_reduce, all.ms_finish += r.ms_finish;
        for (int k = 0; k < msm_report::AFFINE_KINDS; ++k) all.ms_affine[k] += r.ms_affine[k];
    }
};

}  // namespace cuzk::cuda
