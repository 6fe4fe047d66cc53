// Signed window digits of the GPU MSM's scalars: W = ceil(256 / c) windows of c bits, and the digit of each
// window (host and device code; tests/test_device_digits_on_host.cpp checks on every machine that the digits
// add back up to the scalar).
//
// Tried and reverted (BENCHMARKS.md, eighth session): with the precomputed multiples, windows of c and c - 1
// bits, 256 in all, so the short top window's digits (c = 22: bits 242..254, ~7,400 buckets of ~2,300 points
// each at 2^24) no longer crowd a few buckets. The long split buckets' passes went (1.5 ms), but the short
// splits' sums grew by more (longer chains in the buckets every window shares): 88.1 ms against 87.4.
#pragma once

#include <cstdint>

#include "gpud/cuda/field.cuh"

namespace cuzk::cuda {

struct window_layout {
    unsigned c = 0;        // bits per window; the buckets hold digits up to 2^(c-1)
    unsigned windows = 0;  // W = ceil(256 / c)

    CUZK_HD_INLINE static window_layout uniform(unsigned c) { return {c, (256 + c - 1) / c}; }
    CUZK_HD_INLINE unsigned width(unsigned) const { return c; }
    CUZK_HD_INLINE unsigned offset(unsigned w) const { return w * c; }
};

// Window w's signed digit of the scalar |s| (8 little-endian words, below 2^255), given the carry out of
// window w - 1, which it updates: bits [offset, offset + width) plus the carry; a value above 2^(width-1)
// becomes value - 2^width (|magnitude|, negative) with a carry of 1, so magnitude <= 2^(width-1) <= 2^(c-1).
// The last window takes no carry out: c (W - 1) >= 256 - c leaves it at least the top bit, which is zero.
struct signed_digit {
    uint32_t magnitude;
    bool negative;
};
CUZK_HD_INLINE signed_digit window_digit(const uint32_t* s, const window_layout& layout, unsigned w,
                                         uint32_t& carry) {
    const unsigned bit = layout.offset(w), width = layout.width(w);
    uint32_t raw = 0;
    if (bit < 256) {
        const unsigned word = bit / 32, sh = bit % 32;
        const uint64_t two = uint64_t(s[word]) | (word + 1 < 8 ? uint64_t(s[word + 1]) << 32 : 0);
        raw = uint32_t(two >> sh) & ((1u << width) - 1);
    }
    const uint32_t d = raw + carry;
    if (d > (1u << (width - 1))) {
        carry = 1;
        return {(1u << width) - d, true};
    }
    carry = 0;
    return {d, false};
}

}  // namespace cuzk::cuda
