// Fixed-base scalar multiplication with a precomputed table of signed windows, for the many [k_i]G
// of a Groth16 setup (millions of scalars against one generator).
//
// With window width c the scalar is split into W = ceil(256 / c) signed digits in
// [-2^(c-1), 2^(c-1)]; the table holds d * 2^(c w) * G for d in [1, 2^(c-1)] and every window w,
// so one multiplication costs W additions and no doublings. The table costs W * 2^(c-1)
// additions and as many affine points. mul_batch runs many scalars side by side with affine
// accumulators, so each of its additions shares one inversion with the rest of its batch
// (5M + 1S instead of 7M + 4S for a Jacobian mixed addition, and no final normalisation).
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "common/ec/jacobian.hpp"
#include "common/msm/affine_batch_add.hpp"

namespace cuzk::msm {

using ec::affine_t;
using ec::jacobian_t;
using ff::fr_t;

template <class F>
class fixed_base_table {
public:
    // Window width minimising table plus per-scalar work for |count| multiplications, with the
    // table kept below 2^20 points. A table entry (Jacobian addition, then normalisation) costs
    // about three batched affine additions.
    static unsigned window_for(size_t count) {
        unsigned best = 2;
        double best_cost = 1e300;
        for (unsigned c = 2; c <= 18; ++c) {
            double windows = double((256 + c - 1) / c);
            double cost = windows * (3.0 * double(size_t(1) << (c - 1)) + double(count));
            if (windows * double(size_t(1) << (c - 1)) > double(1u << 20)) break;
            if (cost < best_cost) {
                best_cost = cost;
                best = c;
            }
        }
        return best;
    }

    fixed_base_table(const affine_t<F>& base, unsigned window_bits)
        : c_(window_bits), windows_((256 + window_bits - 1) / window_bits), half_(size_t(1) << (window_bits - 1)) {
        table_.resize(windows_ * half_);
        // Window bases 2^(c w) G, sequentially: W * c doublings.
        std::vector<jacobian_t<F>> window_base(windows_);
        jacobian_t<F> b = jacobian_t<F>::from_affine(base);
        for (size_t w = 0; w < windows_; ++w) {
            window_base[w] = b;
            for (unsigned i = 0; i < c_; ++i) b = b.dbl();
        }
        tbb::parallel_for(size_t(0), windows_, [&](size_t w) {
            std::vector<jacobian_t<F>> row(half_);
            jacobian_t<F> acc = window_base[w];
            row[0] = acc;
            for (size_t d = 1; d < half_; ++d) {
                acc = acc + window_base[w];
                row[d] = acc;
            }
            batch_to_affine(row.data(), &table_[w * half_], half_);
        });
    }

    jacobian_t<F> mul(const fr_t& k) const {
        const auto s = k.to_canonical();
        jacobian_t<F> acc;
        uint64_t carry = 0;
        for (size_t w = 0; w < windows_; ++w) {
            uint64_t digit = extract_bits(s, w * c_) + carry;
            carry = 0;
            if (digit > half_) {
                // digit - 2^c <= 0 (digit reaches 2^c with the carry): subtract the mirrored entry
                // and carry one into the next window.
                uint64_t neg = (uint64_t(1) << c_) - digit;
                if (neg != 0) acc = acc.add_mixed(-table_[w * half_ + neg - 1]);
                carry = 1;
            } else if (digit != 0) {
                acc = acc.add_mixed(table_[w * half_ + digit - 1]);
            }
        }
        return acc;
    }

    // out[i] = [scalars[i]] base in affine form, in parallel. Each task keeps BATCH affine
    // accumulators and adds one window's table entries to all of them with one inversion.
    void mul_batch(const fr_t* scalars, affine_t<F>* out, size_t n) const {
        constexpr size_t BATCH = 1024;
        tbb::parallel_for(tbb::blocked_range<size_t>(0, n, BATCH), [&](const tbb::blocked_range<size_t>& r) {
            const size_t m = r.size();
            affine_t<F>* acc = out + r.begin();
            std::vector<ff::limbs<4>> canon(m);
            std::vector<uint8_t> carry(m, 0);
            std::vector<affine_t<F>> negated(m);
            std::vector<affine_t<F>*> acc_ptr(m);
            std::vector<const affine_t<F>*> add_ptr(m);
            affine_batch_scratch<F> scratch;
            for (size_t i = 0; i < m; ++i) {
                canon[i] = scalars[r.begin() + i].to_canonical();
                acc[i] = affine_t<F>::identity();
            }
            for (size_t w = 0; w < windows_; ++w) {
                size_t k = 0;
                for (size_t i = 0; i < m; ++i) {
                    uint64_t digit = extract_bits(canon[i], w * c_) + carry[i];
                    carry[i] = 0;
                    const affine_t<F>* p = nullptr;
                    if (digit > half_) {
                        uint64_t neg = (uint64_t(1) << c_) - digit;
                        carry[i] = 1;
                        if (neg == 0) continue;
                        negated[i] = -table_[w * half_ + neg - 1];
                        p = &negated[i];
                    } else if (digit != 0) {
                        p = &table_[w * half_ + digit - 1];
                    } else {
                        continue;
                    }
                    // An empty accumulator takes the entry as it is; the batch needs two real points.
                    if (acc[i].is_identity()) {
                        acc[i] = *p;
                        continue;
                    }
                    acc_ptr[k] = &acc[i];
                    add_ptr[k] = p;
                    ++k;
                }
                batch_add_in_place(acc_ptr.data(), add_ptr.data(), k, scratch);
            }
        });
    }

    unsigned window_bits() const { return c_; }

private:
    // c bits of the canonical scalar starting at |bit| (bits beyond 255 read as zero).
    uint64_t extract_bits(const ff::limbs<4>& s, size_t bit) const {
        if (bit >= 256) return 0;
        size_t limb = bit / 64, shift = bit % 64;
        uint64_t v = s[limb] >> shift;
        if (shift + c_ > 64 && limb + 1 < 4) v |= s[limb + 1] << (64 - shift);
        return v & ((uint64_t(1) << c_) - 1);
    }

    unsigned c_;
    size_t windows_;
    size_t half_;
    std::vector<affine_t<F>> table_;  // window w, digit d at [w * half_ + d - 1]
};

}  // namespace cuzk::msm
