// Many affine point additions sharing one field inversion (Montgomery's trick).
// Per addition: 1M to chain the denominators, 2M to peel the shared inverse, 1M for the slope and
// 1M + 1S for the result: 5M + 1S, against 8M + 2S for an XYZZ mixed addition. The inversion
// itself (~600 multiplication times for Fp by Fermat) is amortised over the batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/ec/xyzz.hpp"

namespace cuzk::msm {

using ec::affine_t;
using ec::jacobian_t;

// Scratch for batch_add_in_place; kept by the caller so repeated batches allocate nothing.
template <class F>
struct affine_batch_scratch {
    std::vector<F> prefix;        // product of the denominators before entry i
    std::vector<F> den;           // denominator of entry i (x2 - x1, or 2 y1 when doubling)
    std::vector<uint8_t> kind;    // pair_kind of entry i
    void reserve(size_t m) {
        if (prefix.size() < m) {
            prefix.resize(m);
            den.resize(m);
            kind.resize(m);
        }
    }
};

enum pair_kind : uint8_t { pair_add = 0, pair_dbl = 1, pair_cancel = 2 };

// *acc[i] += *addend[i] for i < m, with one inversion. Neither operand may be the identity; a
// result may be (addend = -acc), and is then written as the identity. acc[i] must be distinct
// pointers (each accumulator appears once per batch) and no addend[i] may point at any acc[j]
// (the second pass writes accumulators while later entries still read their addends).
template <class F>
CUZK_EC_OUTLINE void batch_add_in_place(affine_t<F>* const* acc, const affine_t<F>* const* addend, size_t m,
                        affine_batch_scratch<F>& s) {
    if (m == 0) return;
    s.reserve(m);
    // The accumulators are scattered (MSM buckets): fetch a few entries ahead in both passes.
    constexpr size_t ahead = 6;
    auto fetch = [&](size_t i) {
        const char* p = reinterpret_cast<const char*>(acc[i]);
        for (size_t off = 0; off < sizeof(affine_t<F>); off += 64) __builtin_prefetch(p + off);
        __builtin_prefetch(p + sizeof(affine_t<F>) - 1);
    };
    F chain = F::one();
    for (size_t i = 0; i < m; ++i) {
        if (i + ahead < m) fetch(i + ahead);
        const affine_t<F>& a = *acc[i];
        const affine_t<F>& b = *addend[i];
        F& den = s.den[i];
        den = b.x - a.x;
        if (!den.is_zero()) {
            s.kind[i] = pair_add;
        } else if (a.y == b.y && !a.y.is_zero()) {
            s.kind[i] = pair_dbl;
            den = a.y.dbl();
        } else {
            s.kind[i] = pair_cancel;
            continue;
        }
        s.prefix[i] = chain;
        chain *= den;
    }
    F inv = chain.inverse();
    for (size_t i = m; i-- > 0;) {
        if (i >= ahead) fetch(i - ahead);
        affine_t<F>& a = *acc[i];
        const affine_t<F>& b = *addend[i];
        if (s.kind[i] == pair_cancel) {
            a = affine_t<F>::identity();
            continue;
        }
        F num;
        if (s.kind[i] == pair_add) {
            num = b.y - a.y;
        } else {
            F xx = a.x.sqr();
            num = xx.dbl() + xx;
        }
        F den_inv = inv * s.prefix[i];
        inv *= s.den[i];
        F lambda = num * den_inv;
        F x3 = lambda.sqr() - a.x - b.x;
        a.y = lambda * (a.x - x3) - a.y;
        a.x = x3;
    }
}

// Sum of affine points by a pairwise tree: each level halves the count, in blocks of up to
// |block| pairs with one inversion each; identities are dropped as they appear. About 6
// multiplications per input point. |pts| is consumed (used as the working buffer).
template <class F>
jacobian_t<F> sum_affine_tree(std::vector<affine_t<F>>& pts, size_t block = 1024) {
    using A = affine_t<F>;
    // Drop identities so every pair has two real operands.
    size_t n = 0;
    for (size_t i = 0; i < pts.size(); ++i) {
        if (!pts[i].infinity) pts[n++] = pts[i];
    }
    affine_batch_scratch<F> scratch;
    std::vector<A*> acc(block);
    std::vector<const A*> add(block);
    // Below a few dozen points the inversion no longer pays for itself.
    while (n >= 64) {
        size_t pairs = n / 2;
        for (size_t p0 = 0; p0 < pairs; p0 += block) {
            size_t m = std::min(block, pairs - p0);
            for (size_t k = 0; k < m; ++k) {
                acc[k] = &pts[2 * (p0 + k)];
                add[k] = &pts[2 * (p0 + k) + 1];
            }
            batch_add_in_place(acc.data(), add.data(), m, scratch);
        }
        // Compact the sums (even slots) and the odd leftover, dropping cancellations.
        size_t out = 0;
        for (size_t k = 0; k < pairs; ++k) {
            if (!pts[2 * k].infinity) pts[out++] = pts[2 * k];
        }
        if (n & 1) pts[out++] = pts[n - 1];
        n = out;
    }
    jacobian_t<F> r;
    for (size_t i = 0; i < n; ++i) r = r.add_mixed(pts[i]);
    return r;
}

}  // namespace cuzk::msm
