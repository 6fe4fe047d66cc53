// Signed window digits of the GPU MSM's scalars: W = ceil(256 / c) windows, of c bits or split evenly over the
// 256 bits (window_split), and the digit of each window (host and device code;
// tests/test_device_digits_on_host.cpp checks on every machine that the digits add back up to the scalar).
//
// Tried and reverted (on an H200, docs/benchmarks-history.md): with the precomputed multiples, windows of c and c - 1
// bits, 256 in all, so the short top window's digits (c = 22: bits 242..254, ~7,400 buckets of ~2,300 points
// each at 2^24) no longer crowd a few buckets. The long split buckets' passes went (1.5 ms), but the short
// splits' sums grew by more (longer chains in the buckets every window shares): 88.1 ms against 87.4.
#pragma once

#include <cstdint>

#include "gpud/cuda/field.cuh"

namespace cuzk::cuda {

// Window w's signed digit of the scalar |s| (8 little-endian words, below 2^255): bits [bit, bit + c) plus the
// carry out of the window below, which it updates; a value above 2^(c-1) becomes value - 2^c (|magnitude|,
// negative) with a carry of 1, so magnitude <= 2^(c-1). The last window takes no carry out when the windows
// cover 256 bits: it holds at least the top bit, which is zero.
struct signed_digit {
    uint32_t magnitude;
    bool negative;
};
CUZK_HD_INLINE signed_digit window_digit_at(const uint32_t* s, unsigned bit, unsigned c, uint32_t& carry) {
    uint32_t raw = 0;
    if (bit < 256) {
        const unsigned word = bit / 32, sh = bit % 32;
        const uint64_t two = uint64_t(s[word]) | (word + 1 < 8 ? uint64_t(s[word + 1]) << 32 : 0);
        raw = uint32_t(two >> sh) & ((1u << c) - 1);
    }
    const uint32_t d = raw + carry;
    if (d > (1u << (c - 1))) {
        carry = 1;
        return {(1u << c) - d, true};
    }
    carry = 0;
    return {d, false};
}
// Windows of c bits each: window w at bit w c.
CUZK_HD_INLINE signed_digit window_digit(const uint32_t* s, unsigned c, unsigned w, uint32_t& carry) {
    return window_digit_at(s, w * c, c, carry);
}

// The W windows of a run: the first |wide| of |c| bits, the rest of c - 1, covering at least 256 bits. From a
// width c, W = ceil(256 / c) windows (msm_window.hpp's windows_for) each as narrow as W allows (even_split): the same
// W digits per scalar, so the same sorted pairs, but half the buckets in each narrower window (its reduction
// costs half) and twice the points per bucket. c = 22: 4 windows of 22 bits and 8 of 21 (264 bits at 22 each
// left the top window 13 bits: ~4,000 buckets of ~32,000 points at 2^27). uniform(c): every window c bits.
struct window_split {
    unsigned c = 0, windows = 0, wide = 0;
    CUZK_HD_INLINE unsigned width(unsigned w) const { return w < wide ? c : c - 1; }
    CUZK_HD_INLINE unsigned bit(unsigned w) const { return w < wide ? w * c : wide * c + (w - wide) * (c - 1); }
    static CUZK_HD_INLINE window_split uniform(unsigned c) { return {c, (256 + c - 1) / c, (256 + c - 1) / c}; }
    // W = ceil(256 / c) windows of floor(256 / W) bits, 256 mod W of them one bit wider; the widest is at most c.
    static CUZK_HD_INLINE window_split even_split(unsigned c) {
        const unsigned W = (256 + c - 1) / c, base = 256 / W, extra = 256 % W;
        if (extra == 0) return {base, W, W};
        return {base + 1, W, extra};
    }
    // A run's windows at width c: split evenly from c = EVEN_SPLIT_MIN_C on (unless |uniform| is asked for),
    // where each window's 2^20 or more buckets make its reduction long enough to be worth a second pass (the
    // windows of one width go through Pippenger's passes together). On an H200: 2^27 random (the H MSM, c = 22)
    // 617.0 ms against 631.1 (reduction 25.2 against 33.9); below it the second pass costs what the shorter
    // reduction saves or more: 2^24 random (c = 19) 96.58 against 96.60, the partition's L and A (c = 18: a
    // pass of one 18-bit window, too few pairs for the batch-affine rounds) 101.7 against 100.6 ms each
    // (docs/benchmarks-history.md).
    static constexpr unsigned EVEN_SPLIT_MIN_C = 21;
    static CUZK_HD_INLINE window_split for_run(unsigned c, bool uniform_asked) {
        return uniform_asked || c < EVEN_SPLIT_MIN_C ? uniform(c) : even_split(c);
    }
};

}  // namespace cuzk::cuda
