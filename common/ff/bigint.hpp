// Fixed-width unsigned integers as little-endian 64-bit limbs, usable in constant expressions.
// Field parameters are derived from the modulus at compile time with these helpers, so the only
// constants typed by hand are the moduli themselves.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/ff/hd.hpp"

namespace cuzk::ff {

template <size_t N>
using limbs = std::array<uint64_t, N>;

// Parses "0x..." (or bare) hexadecimal into N limbs; extra high digits are a compile error in
// constant evaluation because the index runs past the array.
template <size_t N>
constexpr limbs<N> parse_hex(const char* s) {
    limbs<N> out{};
    size_t len = 0;
    while (s[len] != '\0') ++len;
    size_t start = (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 2 : 0;
    size_t bit = 0;
    for (size_t i = len; i > start; --i, bit += 4) {
        char c = s[i - 1];
        uint64_t v = (c >= '0' && c <= '9')   ? uint64_t(c - '0')
                     : (c >= 'a' && c <= 'f') ? uint64_t(c - 'a' + 10)
                                              : uint64_t(c - 'A' + 10);
        out[bit / 64] |= v << (bit % 64);
    }
    return out;
}

template <size_t N>
constexpr bool geq(const limbs<N>& a, const limbs<N>& b) {
    for (size_t i = N; i-- > 0;) {
        if (a[i] != b[i]) return a[i] > b[i];
    }
    return true;
}

template <size_t N>
constexpr bool is_zero(const limbs<N>& a) {
    uint64_t acc = 0;
    for (size_t i = 0; i < N; ++i) acc |= a[i];
    return acc == 0;
}

// a - b, returning the borrow (0 or 1).
template <size_t N>
constexpr uint64_t sub_borrow(limbs<N>& a, const limbs<N>& b) {
    uint64_t borrow = 0;
    for (size_t i = 0; i < N; ++i) {
        uint64_t bi = b[i] + borrow;
        uint64_t nb = (bi < borrow) || (a[i] < bi) ? 1 : 0;
        a[i] -= bi;
        borrow = nb;
    }
    return borrow;
}

template <size_t N>
constexpr uint64_t add_carry(limbs<N>& a, const limbs<N>& b) {
    uint64_t carry = 0;
    for (size_t i = 0; i < N; ++i) {
        uint64_t s = a[i] + b[i];
        uint64_t c1 = s < a[i] ? 1 : 0;
        uint64_t s2 = s + carry;
        uint64_t c2 = s2 < s ? 1 : 0;
        a[i] = s2;
        carry = c1 | c2;
    }
    return carry;
}

template <size_t N>
constexpr limbs<N> shr1(limbs<N> a) {
    for (size_t i = 0; i < N; ++i) {
        a[i] = (a[i] >> 1) | (i + 1 < N ? a[i + 1] << 63 : 0);
    }
    return a;
}

template <size_t N>
constexpr size_t num_bits(const limbs<N>& a) {
    for (size_t i = N; i-- > 0;) {
        if (a[i] != 0) {
            size_t b = 64;
            while (((a[i] >> (b - 1)) & 1) == 0) --b;
            return i * 64 + b;
        }
    }
    return 0;
}

template <size_t N>
constexpr bool test_bit(const limbs<N>& a, size_t bit) {
    return bit < 64 * N && ((a[bit / 64] >> (bit % 64)) & 1) != 0;
}

// (a + a) mod m for a < m; m must leave the top bit of the top limb free or the carry is handled.
template <size_t N>
constexpr limbs<N> double_mod(limbs<N> a, const limbs<N>& m) {
    uint64_t carry = add_carry(a, a);
    if (carry || geq(a, m)) sub_borrow(a, m);
    return a;
}

// 2^k mod m, by doubling; only used at compile time.
template <size_t N>
constexpr limbs<N> pow2_mod(size_t k, const limbs<N>& m) {
    limbs<N> one{};
    one[0] = 1;
    limbs<N> r = one;
    for (size_t i = 0; i < k; ++i) r = double_mod(r, m);
    return r;
}

// -m^{-1} mod 2^64 by Newton iteration (m odd).
constexpr uint64_t neg_inv64(uint64_t m0) {
    uint64_t inv = 1;
    for (int i = 0; i < 7; ++i) inv *= 2 - m0 * inv;
    return ~inv + 1;
}

}  // namespace cuzk::ff
