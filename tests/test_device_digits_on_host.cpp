// The GPU MSM's signed window digits (gpud/cuda/msm_digits.cuh) compiled for the host: for every window
// width the GPU takes, each digit stays within its half range, the last window leaves no carry, and the
// digits weighted by 2^(w c) add back up to the scalar. test_cuda_msm checks the MSMs built on them
// against the CPU on a GPU.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <vector>

#include "gpud/cuda/msm_digits.cuh"

using namespace cuzk;

namespace {

using u256 = std::array<uint32_t, 8>;

// acc += sign * d * 2^bit, on 288-bit two's complement words (room for the transient carries).
void add_shifted(std::array<uint64_t, 9>& acc, uint64_t d, unsigned bit, bool negative) {
    std::array<uint64_t, 9> t{};
    const unsigned word = bit / 32, sh = bit % 32;
    const uint64_t v = d << sh;  // d < 2^25, sh < 32: below 2^57
    t[word] = v & 0xffffffffu;
    if (word + 1 < 9) t[word + 1] = v >> 32;
    uint64_t carry = 0;
    if (!negative) {
        for (int i = 0; i < 9; ++i) {
            const uint64_t s = acc[i] + t[i] + carry;
            acc[i] = s & 0xffffffffu;
            carry = s >> 32;
        }
    } else {
        uint64_t borrow = 0;
        for (int i = 0; i < 9; ++i) {
            const uint64_t sub = t[i] + borrow;
            borrow = acc[i] < sub;
            acc[i] = (acc[i] - sub) & 0xffffffffu;
        }
    }
}

// W = ceil(256 / c) windows, as msm.cu's windows_for.
unsigned windows_of(unsigned c) { return (256 + c - 1) / c; }

void check_digits(const u256& s, unsigned c) {
    std::array<uint64_t, 9> acc{};
    uint32_t carry = 0;
    for (unsigned w = 0; w < windows_of(c); ++w) {
        const auto d = cuda::window_digit(s.data(), c, w, carry);
        ASSERT_LE(d.magnitude, 1u << (c - 1)) << "window " << w << " of c = " << c;
        add_shifted(acc, d.magnitude, w * c, d.negative);
    }
    ASSERT_EQ(carry, 0u) << "the last window carries out, c = " << c;
    for (int i = 0; i < 8; ++i) ASSERT_EQ(acc[i], s[i]) << "word " << i << ", c = " << c;
    ASSERT_EQ(acc[8], 0u);
}

TEST(DeviceDigitsOnHost, DigitsAddBackToTheScalar) {
    std::mt19937_64 rng(3);
    std::vector<u256> scalars;
    // Edge values below 2^255 (canonical scalars are below r < 2^255): 0, 1, all ones of 255 bits, single
    // bits, alternating patterns; then random ones.
    u256 zero{}, one{}, top{};
    one[0] = 1;
    for (auto& w : top) w = 0xffffffffu;
    top[7] = 0x7fffffffu;
    scalars.insert(scalars.end(), {zero, one, top});
    for (unsigned bit = 0; bit < 255; bit += 7) {
        u256 s{};
        s[bit / 32] = 1u << (bit % 32);
        scalars.push_back(s);
    }
    u256 alt{};
    for (auto& w : alt) w = 0xaaaaaaaau;
    alt[7] &= 0x7fffffffu;
    scalars.push_back(alt);
    for (int i = 0; i < 300; ++i) {
        u256 s;
        for (auto& w : s) w = uint32_t(rng());
        s[7] &= 0x7fffffffu;
        scalars.push_back(s);
    }
    for (unsigned c = 2; c <= 24; ++c) {
        for (const auto& s : scalars) {
            check_digits(s, c);
        }
    }
}

}  // namespace
