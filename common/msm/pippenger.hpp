// Pippenger's bucket method with signed windows, for G1 and G2.
//
// A scalar k < 2^255 is recoded in base 2^c with digits d_w in [-2^(c-1), 2^(c-1)], so each
// window needs only 2^(c-1) buckets: point P goes to bucket |d_w| - 1 as P or -P. A window's sum
// is sum_b (b + 1) * bucket_b, obtained with two running sums. Windows are combined by Horner's
// rule with c doublings between them.
//
// Work is split into tasks (window, range of points); each task owns its buckets, so tasks need no
// synchronisation and a window split over several point ranges costs one extra bucket reduction
// per range. Two bucket representations:
//  - xyzz: buckets in XYZZ coordinates, 8M + 2S per point;
//  - batch_affine: affine buckets updated by batched affine additions (5M + 1S per point plus the
//    amortised inversion); a point whose bucket is already in the pending batch waits for the
//    next batch, or goes to a side XYZZ bucket, so repeated digits never stall the batch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "common/ec/xyzz.hpp"
#include "common/msm/affine_batch_add.hpp"

namespace cuzk::msm {

using scalar_repr_t = ff::fr_t::repr_t;  // canonical scalar, 4 little-endian limbs, < 2^255

enum class bucket_mode { automatic, xyzz, batch_affine };

struct pippenger_options {
    unsigned window_bits = 0;  // c; 0 chooses it from the number of points and threads
    bucket_mode mode = bucket_mode::automatic;
    unsigned threads = 0;      // 0 = the TBB arena's concurrency
    size_t batch = 0;          // additions per inversion in batch_affine mode; 0 chooses from c
};

// The plan for one MSM: window width, bucket mode and how points are split into ranges.
struct pippenger_plan {
    unsigned c = 1;
    unsigned windows = 256;
    size_t ranges = 1;
    bucket_mode mode = bucket_mode::xyzz;
    size_t batch = 0;  // pending additions per inversion (batch_affine)
};

namespace detail {

// Signed digits of a scalar whose windows cover bits [0, c * windows): windows = ceil(256 / c)
// leaves the top window at most c - 1 significant bits when k < 2^255, so its digit plus the
// carry stays <= 2^(c-1) and no carry is lost.
inline unsigned window_count(unsigned c) { return (256 + c - 1) / c; }

// Bits [off, off + c) of k, c <= 32.
inline uint32_t window_bits(const scalar_repr_t& k, unsigned off, unsigned c) {
    if (off >= 256) return 0;
    unsigned limb = off / 64, sh = off % 64;
    uint64_t v = k[limb] >> sh;
    if (sh + c > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - sh);
    return uint32_t(v & ((uint64_t(1) << c) - 1));
}

// Recoding rule, window by window from the bottom: v = bits + carry_in; if v > 2^(c-1) the digit
// is v - 2^c and the carry out is 1. The carry into window w is therefore a function of the low
// c*w bits L of k alone: carry_w = [L > T_w] with T_w = 2^(c-1) * sum_{j<w} 2^(c j) (by induction:
// carry_{w+1} = [v_w > H or (v_w = H and carry_w)] = [L_{w+1} > H 2^(c w) + T_w]). Holding T_w
// per window lets a task for window w find its digits without walking the lower windows.
struct window_recoder {
    unsigned c, w;
    unsigned low_bits;         // c * w, capped at 256
    scalar_repr_t threshold;   // T_w

    window_recoder(unsigned c_, unsigned w_) : c(c_), w(w_), low_bits(std::min(256u, c_ * w_)), threshold{} {
        for (unsigned j = 0; j < w; ++j) {
            unsigned bit = c * j + c - 1;  // 2^(c-1) * 2^(c j)
            if (bit < 256) threshold[bit / 64] |= uint64_t(1) << (bit % 64);
        }
    }

    bool carry_in(const scalar_repr_t& k) const {
        if (w == 0) return false;
        // Compare (k mod 2^low_bits) with threshold, top limb first.
        for (int i = 3; i >= 0; --i) {
            unsigned lo = unsigned(i) * 64;
            if (lo >= low_bits) continue;
            uint64_t kv = k[i];
            if (low_bits - lo < 64) kv &= (uint64_t(1) << (low_bits - lo)) - 1;
            if (kv != threshold[i]) return kv > threshold[i];
        }
        return false;
    }

    // Digit of window w in [-2^(c-1), 2^(c-1)].
    int32_t digit(const scalar_repr_t& k) const {
        int64_t v = int64_t(window_bits(k, c * w, c)) + (carry_in(k) ? 1 : 0);
        int64_t half = int64_t(1) << (c - 1);
        return int32_t(v > half ? v - (int64_t(1) << c) : v);
    }
};

// Relative costs in field-multiplication units, used only to choose the plan; measured on G1 with
// bench_field (one Fp multiplication ~50 ns on the 2-core development machine; additions are not
// free, hence more than the multiplication counts).
inline constexpr double cost_xyzz_add = 11.8;      // madd-2008-s, 8M + 2S + 7 additions
inline constexpr double cost_affine_add = 8.3;     // batched affine, 5M + 1S + 7 additions
inline constexpr double cost_reduce_bucket = 29.5; // running sum (mixed) + total (XYZZ) per bucket
// Fermat inversion: ~630 multiplications in Fp; in Fp2 one Fp inversion plus a few products, about
// 200 Fp2 multiplications.
template <class F>
inline constexpr double cost_inversion = std::is_same_v<F, ff::fp2_t> ? 200.0 : 630.0;

inline size_t batch_size_for(unsigned c) {
    // A batch filling up to 1/4 of the buckets keeps conflicts (a deferral, rarely an XYZZ
    // addition) uncommon, and 2048 additions amortise the inversion to ~0.3M each while the batch
    // (accumulators plus addends, ~400 KiB on G1) still fits in L2.
    size_t b = (size_t(1) << (c - 1)) / 4;
    return std::clamp<size_t>(b, 16, 2048);
}

}  // namespace detail

// Chooses c, the bucket mode and the point ranges by minimising the estimated makespan:
// ceil(tasks / threads) * (points per task * cost per point + buckets * reduction cost).
template <class F>
pippenger_plan plan_pippenger(size_t n, const pippenger_options& opt = {}) {
    using namespace detail;
    unsigned threads = opt.threads ? opt.threads : unsigned(tbb::this_task_arena::max_concurrency());
    threads = std::max(1u, threads);
    pippenger_plan best;
    double best_cost = -1;
    unsigned c_lo = opt.window_bits ? opt.window_bits : 1;
    unsigned c_hi = opt.window_bits ? opt.window_bits : 20;
    for (unsigned c = c_lo; c <= c_hi; ++c) {
        unsigned w = window_count(c);
        double buckets = double(size_t(1) << (c - 1));
        size_t max_ranges = std::max<size_t>(1, std::min<size_t>(4 * threads, n / 64 + 1));
        for (size_t ranges = 1; ranges <= max_ranges; ++ranges) {
            double per_task_points = double(n) / double(ranges);
            size_t tasks = size_t(w) * ranges;
            double rounds = double((tasks + threads - 1) / threads);
            for (bucket_mode mode : {bucket_mode::xyzz, bucket_mode::batch_affine}) {
                if (opt.mode != bucket_mode::automatic && opt.mode != mode) continue;
                double per_point = cost_xyzz_add;
                double fixed = buckets * cost_reduce_bucket;
                size_t batch = 0;
                if (mode == bucket_mode::batch_affine) {
                    batch = opt.batch ? opt.batch : batch_size_for(c);
                    // A conflict is deferred once; only a second one costs an XYZZ addition.
                    double occupancy = std::min(1.0, double(batch) / 2.0 / buckets);
                    per_point = cost_affine_add + occupancy * occupancy * (cost_xyzz_add - cost_affine_add);
                    fixed += cost_inversion<F> * (per_task_points / double(batch) + 1.0);
                }
                double cost = rounds * (per_task_points * per_point + fixed);
                if (best_cost < 0 || cost < best_cost) {
                    best_cost = cost;
                    best.c = c;
                    best.windows = w;
                    best.ranges = ranges;
                    best.mode = mode;
                    best.batch = batch;
                }
            }
        }
    }
    return best;
}

namespace detail {

// Points and canonical scalars of one MSM; point j is points[index[j]] when index is given.
template <class F>
struct msm_input {
    const affine_t<F>* points;
    const uint32_t* index;  // nullable
    const scalar_repr_t* scalars;
    size_t n;
    const affine_t<F>& point(size_t j) const { return points[index ? index[j] : j]; }
};

// Sum over buckets of (b + 1) * bucket_b: running sum from the top bucket down, added into the
// total once per bucket.
template <class F>
ec::xyzz_t<F> reduce_xyzz_buckets(const std::vector<ec::xyzz_t<F>>& buckets) {
    ec::xyzz_t<F> running, total;
    for (size_t b = buckets.size(); b-- > 0;) {
        running.add(buckets[b]);
        total.add(running);
    }
    return total;
}

template <class F>
ec::xyzz_t<F> window_task_xyzz(const msm_input<F>& in, const window_recoder& rec, size_t lo, size_t hi) {
    std::vector<ec::xyzz_t<F>> buckets(size_t(1) << (rec.c - 1));
    for (size_t j = lo; j < hi; ++j) {
        int32_t d = rec.digit(in.scalars[j]);
        if (d == 0) continue;
        const affine_t<F>& p = in.point(j);
        if (d > 0) {
            buckets[size_t(d - 1)].accumulate(p);
        } else {
            buckets[size_t(-d - 1)].accumulate_neg(p);
        }
    }
    return reduce_xyzz_buckets(buckets);
}

// Prefetches every cache line of *p (an affine point spans 2 lines on G1, 4 on G2).
template <class T>
inline void prefetch_lines(const T* p) {
    const char* c = reinterpret_cast<const char*>(p);
    for (size_t off = 0; off < sizeof(T); off += 64) __builtin_prefetch(c + off);
    __builtin_prefetch(c + sizeof(T) - 1);  // the object need not start on a line boundary
}

// Affine buckets fed by batched additions. A bucket takes at most one addition per batch; a
// point whose bucket is already in the batch is deferred to the next batch (a copy, no
// arithmetic), and only if it conflicts again, or the deferred list is full (many equal digits),
// is it added into a side XYZZ bucket (8M + 2S instead of ~6M). Invariants: in_batch_[b] iff
// bucket b is an accumulator of the current batch, which implies bucket b is not the identity;
// deferred_.size() < batch_, so re-adding the deferred points after a flush cannot fill the batch.
template <class F>
class affine_bucket_window {
public:
    affine_bucket_window(unsigned c, size_t batch)
        : buckets_(size_t(1) << (c - 1)), in_batch_(buckets_.size(), 0), batch_(std::max<size_t>(batch, 2)) {
        acc_.reserve(batch_);
        addend_ptr_.reserve(batch_);
        addend_.resize(batch_);
        deferred_.reserve(batch_ / 2);
        retry_.reserve(batch_ / 2);
    }

    void add(size_t b, const affine_t<F>& p, bool negate) {
        if (p.infinity) return;
        if (!in_batch_[b]) {
            place(b, negate ? -p : p);
            if (acc_.size() == batch_) flush();
            return;
        }
        if (deferred_.size() < batch_ / 2) {
            deferred_.push_back({b, negate ? -p : p});
            return;
        }
        add_to_overflow(b, negate ? -p : p);
    }

    void prefetch(size_t b) const { prefetch_lines(&buckets_[b]); }

    // Runs the batch, then offers each deferred point once more.
    void flush() {
        batch_add_in_place(acc_.data(), addend_ptr_.data(), acc_.size(), scratch_);
        for (affine_t<F>* a : acc_) in_batch_[size_t(a - buckets_.data())] = 0;
        acc_.clear();
        addend_ptr_.clear();
        retry_.swap(deferred_);
        for (const auto& e : retry_) {
            if (in_batch_[e.bucket]) {
                add_to_overflow(e.bucket, e.point);
            } else {
                place(e.bucket, e.point);
            }
        }
        retry_.clear();
    }

    ec::xyzz_t<F> reduce() {
        while (!acc_.empty() || !deferred_.empty()) flush();
        ec::xyzz_t<F> running, total;
        for (size_t b = buckets_.size(); b-- > 0;) {
            running.accumulate(buckets_[b]);
            if (!overflow_.empty()) running.add(overflow_[b]);
            total.add(running);
        }
        return total;
    }

private:
    struct deferred_point {
        size_t bucket;
        affine_t<F> point;  // already negated where the digit was negative
    };

    // Bucket b is not in the batch: take p directly if it is empty, else queue the addition.
    void place(size_t b, const affine_t<F>& p) {
        affine_t<F>& bucket = buckets_[b];
        if (bucket.infinity) {
            bucket = p;
            return;
        }
        in_batch_[b] = 1;
        size_t k = acc_.size();
        addend_[k] = p;
        acc_.push_back(&bucket);
        addend_ptr_.push_back(&addend_[k]);
    }

    void add_to_overflow(size_t b, const affine_t<F>& p) {
        if (overflow_.empty()) overflow_.resize(buckets_.size());
        overflow_[b].accumulate(p);
    }

    std::vector<affine_t<F>> buckets_;
    std::vector<uint8_t> in_batch_;
    std::vector<ec::xyzz_t<F>> overflow_;  // allocated at the first double conflict
    size_t batch_;
    std::vector<affine_t<F>*> acc_;
    std::vector<const affine_t<F>*> addend_ptr_;
    std::vector<affine_t<F>> addend_;
    std::vector<deferred_point> deferred_, retry_;
    affine_batch_scratch<F> scratch_;
};

template <class F>
ec::xyzz_t<F> window_task_batch_affine(const msm_input<F>& in, const window_recoder& rec, size_t batch,
                                       size_t lo, size_t hi) {
    affine_bucket_window<F> win(rec.c, batch);
    // Digits are computed |ahead| points early so the bucket (a random line of a table of several
    // MiB) and the point are prefetched while the current addition is set up.
    constexpr size_t ahead = 8;
    int32_t ring[ahead] = {};
    auto look_ahead = [&](size_t j) {
        int32_t d = rec.digit(in.scalars[j]);
        ring[j % ahead] = d;
        if (d != 0) {
            win.prefetch(size_t(d > 0 ? d - 1 : -d - 1));
            prefetch_lines(&in.point(j));
        }
    };
    for (size_t j = lo; j < std::min(hi, lo + ahead); ++j) look_ahead(j);
    for (size_t j = lo; j < hi; ++j) {
        int32_t d = ring[j % ahead];
        if (j + ahead < hi) look_ahead(j + ahead);
        if (d == 0) continue;
        if (d > 0) {
            win.add(size_t(d - 1), in.point(j), false);
        } else {
            win.add(size_t(-d - 1), in.point(j), true);
        }
    }
    return win.reduce();
}

template <class F>
jacobian_t<F> pippenger_run(const msm_input<F>& in, const pippenger_plan& plan) {
    if (in.n == 0) return jacobian_t<F>::identity();
    const unsigned c = plan.c, W = plan.windows;
    const size_t R = plan.ranges;
    std::vector<ec::xyzz_t<F>> partial(size_t(W) * R);
    tbb::parallel_for(size_t(0), partial.size(), [&](size_t t) {
        unsigned w = unsigned(t / R);
        size_t r = t % R;
        size_t lo = in.n * r / R, hi = in.n * (r + 1) / R;
        window_recoder rec(c, w);
        partial[t] = plan.mode == bucket_mode::batch_affine
                         ? window_task_batch_affine(in, rec, plan.batch, lo, hi)
                         : window_task_xyzz(in, rec, lo, hi);
    }, tbb::simple_partitioner());
    // Horner over windows, top first: acc = 2^c acc + window_w.
    ec::xyzz_t<F> acc;
    for (unsigned w = W; w-- > 0;) {
        for (unsigned i = 0; i < c && !acc.is_identity(); ++i) acc.dbl_in_place();
        for (size_t r = 0; r < R; ++r) acc.add(partial[size_t(w) * R + r]);
    }
    return acc.to_jacobian();
}

}  // namespace detail

// sum_j scalars[j] * points[j] for canonical scalars (< 2^255; Fr values are < r < 2^255).
// Identity points are allowed. |points| and |scalars| must have the same length.
template <class F>
jacobian_t<F> pippenger(std::span<const affine_t<F>> points, std::span<const scalar_repr_t> scalars,
                        const pippenger_options& opt = {}) {
    size_t n = std::min(points.size(), scalars.size());
    detail::msm_input<F> in{points.data(), nullptr, scalars.data(), n};
    return detail::pippenger_run(in, plan_pippenger<F>(n, opt));
}

}  // namespace cuzk::msm
