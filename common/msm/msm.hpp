// Multi-scalar multiplication as the prover calls it: scalars in Montgomery form (as witnesses are
// held), most of them 0 or 1 in PoRep (SHA-256 bits). Zeros are skipped, ones are summed with
// batched affine additions (~6 multiplications per point), and Pippenger runs over the rest.
//
//   g1_jacobian_t r = msm::multi_exp<fp_t>(points, scalars);
//
// G1 (fp_t) and G2 (fp2_t) are instantiated once in msm.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "common/msm/affine_batch_add.hpp"
#include "common/msm/pippenger.hpp"

namespace cuzk::msm {

// How the scalars of one multi_exp were split; the prover logs these.
struct msm_stats {
    size_t zeros = 0;
    size_t ones = 0;
    size_t others = 0;  // scalars that went through Pippenger
};

// Sum of points[index[i]] for i < count, in parallel over ranges of |index|.
template <class F>
jacobian_t<F> sum_indexed_points(const affine_t<F>* points, const uint32_t* index, size_t count) {
    if (count == 0) return jacobian_t<F>::identity();
    size_t threads = size_t(std::max(1, tbb::this_task_arena::max_concurrency()));
    // A range below a few thousand points does not amortise the per-level inversions.
    size_t ranges = std::max<size_t>(1, std::min(threads, count / 4096));
    std::vector<jacobian_t<F>> part(ranges);
    tbb::parallel_for(size_t(0), ranges, [&](size_t r) {
        size_t lo = count * r / ranges, hi = count * (r + 1) / ranges;
        std::vector<affine_t<F>> pts(hi - lo);
        for (size_t i = lo; i < hi; ++i) pts[i - lo] = points[index[i]];
        part[r] = sum_affine_tree(pts);
    }, tbb::simple_partitioner());
    jacobian_t<F> r;
    for (const auto& p : part) r = r + p;
    return r;
}

// sum_i scalars[i] * points[i]; the spans must have equal length (the shorter one bounds the sum).
template <class F>
jacobian_t<F> multi_exp(std::span<const affine_t<F>> points, std::span<const ff::fr_t> scalars,
                        msm_stats* stats = nullptr, const pippenger_options& opt = {}) {
    const size_t n = std::min(points.size(), scalars.size());
    if (n > size_t(UINT32_MAX)) throw std::invalid_argument("multi_exp: more than 2^32 - 1 points");
    // Classify in parallel chunks, then concatenate the per-chunk index lists in order.
    const size_t chunk = 1 << 16;
    const size_t chunks = (n + chunk - 1) / chunk;
    std::vector<std::vector<uint32_t>> ones(chunks), others(chunks);
    std::vector<size_t> zeros(chunks, 0);
    const ff::fr_t one = ff::fr_t::one();
    tbb::parallel_for(size_t(0), chunks, [&](size_t k) {
        size_t lo = k * chunk, hi = std::min(n, lo + chunk);
        for (size_t i = lo; i < hi; ++i) {
            const ff::fr_t& s = scalars[i];
            if (s.is_zero()) {
                ++zeros[k];
            } else if (s == one) {
                ones[k].push_back(uint32_t(i));
            } else {
                others[k].push_back(uint32_t(i));
            }
        }
    });
    auto concat = [](std::vector<std::vector<uint32_t>>& parts) {
        size_t total = 0;
        for (const auto& p : parts) total += p.size();
        std::vector<uint32_t> out;
        out.reserve(total);
        for (auto& p : parts) {
            out.insert(out.end(), p.begin(), p.end());
            std::vector<uint32_t>().swap(p);
        }
        return out;
    };
    std::vector<uint32_t> one_idx = concat(ones), other_idx = concat(others);
    if (stats) {
        stats->zeros = 0;
        for (size_t z : zeros) stats->zeros += z;
        stats->ones = one_idx.size();
        stats->others = other_idx.size();
    }

    jacobian_t<F> sum_ones = sum_indexed_points(points.data(), one_idx.data(), one_idx.size());

    std::vector<scalar_repr_t> canon(other_idx.size());
    tbb::parallel_for(tbb::blocked_range<size_t>(0, canon.size(), 4096), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) canon[i] = scalars[other_idx[i]].to_canonical();
    });
    detail::msm_input<F> in{points.data(), other_idx.data(), canon.data(), canon.size()};
    jacobian_t<F> sum_others = detail::pippenger_run(in, plan_pippenger<F>(canon.size(), opt));
    return sum_ones + sum_others;
}

extern template jacobian_t<ff::fp_t> pippenger<ff::fp_t>(std::span<const affine_t<ff::fp_t>>,
                                                          std::span<const scalar_repr_t>, const pippenger_options&);
extern template jacobian_t<ff::fp2_t> pippenger<ff::fp2_t>(std::span<const affine_t<ff::fp2_t>>,
                                                            std::span<const scalar_repr_t>, const pippenger_options&);
extern template jacobian_t<ff::fp_t> multi_exp<ff::fp_t>(std::span<const affine_t<ff::fp_t>>,
                                                          std::span<const ff::fr_t>, msm_stats*,
                                                          const pippenger_options&);
extern template jacobian_t<ff::fp2_t> multi_exp<ff::fp2_t>(std::span<const affine_t<ff::fp2_t>>,
                                                            std::span<const ff::fr_t>, msm_stats*,
                                                            const pippenger_options&);

}  // namespace cuzk::msm
