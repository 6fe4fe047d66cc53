// Signed window digits of the GPU MSM's scalars: W = ceil(256 / c) windows of c bits (msm.cu's windows_for),
// and the digit of each window (host and device code; tests/test_device_digits_on_host.cpp checks on every
// machine that the digits add back up to the scalar).
//
// Tried and reverted (BENCHMARKS.md, eighth session): with the precomputed multiples, windows of c and c - 1
// bits, 256 in all, so the short top window's digits (c = 22: bits 242..254, ~7,400 buckets of ~2,300 points
// each at 2^24) no longer crowd a few buckets. The long split buckets' passes went (1.5 ms), but the short
// splits' sums grew by more (longer chains in the buckets every window shares): 88.1 ms against 87.4.
#pragma once

#include <cstdint>

#include "gpud/cuda/field.cuh"

namespace cuzk::cuda {

// Window w's signed digit of the scalar |s| (8 little-endian words, below 2^255) at width c, given the carry
// out of window w - 1, which it updates: bits [w c, w c + c) plus the carry; a value above 2^(c-1) becomes
// value - 2^c (|magnitude|, negative) with a carry of 1, so magnitude <= 2^(c-1). The last window takes no
// carry out: c (W - 1) >= 256 - c leaves it at least the top bit, which is zero.
struct signed_digit {
    uint32_t magnitude;
    bool negative;
};
CUZK_HD_INLINE signed_digit window_digit(const uint32_t* s, unsigned c, unsigned w, uint32_t& carry) {
    const unsigned bit = w * c;
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

}  // namespace cuzk::cuda
