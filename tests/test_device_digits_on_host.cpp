// The GPU MSM's signed window digits (gpud/cuda/msm_digits.cuh) compiled for the host: for every window
// width the GPU takes, windows of c bits and the even split of 256 bits, each digit stays within its half
// range, the last window leaves no carry, and the digits weighted by 2^(window's bit) add back up to the
// scalar. test_cuda_msm checks the MSMs built on them
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

// W = ceil(256 / c) windows, as msm_window.hpp's windows_for.
unsigned windows_of(unsigned c) { return (256 + c - 1) / c; }

// As check_digits, over the windows of |split| (widths and bits from it).
void check_split_digits(const u256& s, const cuda::window_split& split) {
    std::array<uint64_t, 9> acc{};
    uint32_t carry = 0;
    for (unsigned w = 0; w < split.windows; ++w) {
        const unsigned c = split.width(w);
        const auto d = cuda::window_digit_at(s.data(), split.bit(w), c, carry);
        ASSERT_LE(d.magnitude, 1u << (c - 1)) << "window " << w << " of " << c << " bits";
        add_shifted(acc, d.magnitude, split.bit(w), d.negative);
    }
    ASSERT_EQ(carry, 0u) << "the last window carries out, split of c = " << split.c;
    for (int i = 0; i < 8; ++i) ASSERT_EQ(acc[i], s[i]) << "word " << i << ", split of c = " << split.c;
    ASSERT_EQ(acc[8], 0u);
}

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
            check_split_digits(s, cuda::window_split::even_split(c));
            check_split_digits(s, cuda::window_split::uniform(c));
        }
    }
}

// The even split of 256 bits over W = ceil(256 / c) windows: the same W as c-bit windows, widths c or c - 1
// (never more than c), the wide ones first, each window starting where the one below ends, 256 bits in all;
// the partition's widths as docs/benchmarks-history.md names them.
TEST(DeviceDigitsOnHost, EvenSplitCoversTheScalarWithTheSameWindows) {
    for (unsigned c = 2; c <= 24; ++c) {
        const auto split = cuda::window_split::even_split(c);
        EXPECT_EQ(split.windows, windows_of(c)) << "c = " << c;
        EXPECT_LE(split.c, c);
        EXPECT_GE(split.wide, 1u);
        EXPECT_LE(split.wide, split.windows);
        unsigned bit = 0;
        for (unsigned w = 0; w < split.windows; ++w) {
            EXPECT_EQ(split.bit(w), bit) << "c = " << c << " window " << w;
            EXPECT_EQ(split.width(w), w < split.wide ? split.c : split.c - 1);
            EXPECT_GE(split.width(w), 2u);
            bit += split.width(w);
        }
        EXPECT_EQ(bit, 256u) << "c = " << c;
        const auto uniform = cuda::window_split::uniform(c);
        EXPECT_EQ(uniform.windows, windows_of(c));
        EXPECT_EQ(uniform.wide, uniform.windows);
        EXPECT_EQ(uniform.bit(uniform.windows - 1), (uniform.windows - 1) * c);
    }
    const auto h = cuda::window_split::even_split(22);  // the H MSM: 4 windows of 22 bits, 8 of 21
    EXPECT_EQ(h.c, 22u);
    EXPECT_EQ(h.wide, 4u);
    const auto la = cuda::window_split::even_split(18);  // L and A: 1 of 18, 14 of 17
    EXPECT_EQ(la.wide, 1u);
    const auto b = cuda::window_split::even_split(16);  // B: 16 of 16, as before
    EXPECT_EQ(b.c, 16u);
    EXPECT_EQ(b.wide, 16u);
    EXPECT_EQ(cuda::window_split::even_split(17).c, 16u) << "16 windows of 17 bits take 16 of 16";
    // What a run takes: the even split from c = 21 unless uniform windows are asked for.
    EXPECT_EQ(cuda::window_split::for_run(22, false).wide, 4u);
    EXPECT_EQ(cuda::window_split::for_run(22, true).wide, 12u);
    EXPECT_EQ(cuda::window_split::for_run(21, false).c, 20u);  // 13 windows: 9 of 20 bits, 4 of 19
    EXPECT_EQ(cuda::window_split::for_run(21, false).wide, 9u);
    EXPECT_EQ(cuda::window_split::for_run(20, false).wide, 13u);
    EXPECT_EQ(cuda::window_split::for_run(18, false).c, 18u);
}

}  // namespace
