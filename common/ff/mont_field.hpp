// Prime field in Montgomery form over N 64-bit limbs; one template serves Fp (381-bit) and Fr (255-bit).
// Every derived constant (R, R^2, -p^-1) is computed from the modulus at compile time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/ff/bigint.hpp"
#include "common/ff/hd.hpp"
#include "common/ff/mont_mul_x86.hpp"

namespace cuzk::ff {

using u128 = unsigned __int128;

template <class P>
class mont_field {
public:
    static constexpr size_t N = P::N;
    using repr_t = limbs<N>;
    static constexpr repr_t MODULUS = P::MODULUS;
    static constexpr size_t BITS = num_bits(P::MODULUS);
    static constexpr size_t BYTES = (BITS + 7) / 8;
    static constexpr uint64_t INV = neg_inv64(P::MODULUS[0]);
    static constexpr repr_t R = pow2_mod(64 * N, P::MODULUS);       // Montgomery form of 1
    static constexpr repr_t R2 = pow2_mod(128 * N, P::MODULUS);     // converts into Montgomery form
    // The carry-free CIOS multiplication below needs one spare bit in the top limb.
    static_assert(P::MODULUS[N - 1] < 0x7fffffffffffffffULL, "modulus leaves no spare top bit");

    uint64_t l[N];  // Montgomery representation, always fully reduced (< MODULUS)

    constexpr mont_field() : l{} {}

    static constexpr mont_field zero() { return mont_field(); }
    static constexpr mont_field one() { return from_raw(R); }

    // Wraps limbs that are already in Montgomery form.
    static constexpr mont_field from_raw(const repr_t& r) {
        mont_field f;
        for (size_t i = 0; i < N; ++i) f.l[i] = r[i];
        return f;
    }
    // Converts a canonical integer (< MODULUS) into Montgomery form.
    static CUZK_HD mont_field from_canonical(const repr_t& r) {
        return from_raw(r) * from_raw(R2);
    }
    static CUZK_HD mont_field from_u64(uint64_t v) {
        repr_t r{};
        r[0] = v;
        return from_canonical(r);
    }
    // Parses a hexadecimal literal (reduced modulo nothing: the value must be < MODULUS).
    static mont_field from_hex(const char* s) { return from_canonical(parse_hex<N>(s)); }

    CUZK_HD repr_t to_canonical() const {
        mont_field one_raw;
        one_raw.l[0] = 1;
        mont_field c = *this * one_raw;
        repr_t r{};
        for (size_t i = 0; i < N; ++i) r[i] = c.l[i];
        return r;
    }
    CUZK_HD repr_t raw() const {
        repr_t r{};
        for (size_t i = 0; i < N; ++i) r[i] = l[i];
        return r;
    }

    CUZK_HD bool is_zero() const {
        uint64_t acc = 0;
        for (size_t i = 0; i < N; ++i) acc |= l[i];
        return acc == 0;
    }
    CUZK_HD bool is_one() const { return *this == one(); }
    CUZK_HD friend bool operator==(const mont_field& a, const mont_field& b) {
        uint64_t acc = 0;
        for (size_t i = 0; i < N; ++i) acc |= a.l[i] ^ b.l[i];
        return acc == 0;
    }
    CUZK_HD friend bool operator!=(const mont_field& a, const mont_field& b) { return !(a == b); }

    CUZK_HD_INLINE mont_field& operator+=(const mont_field& b) {
#if defined(CUZK_FF_HAVE_X86_ADD_SUB)
        if constexpr (N == 6 || N == 4) {
            add_to(*this, *this, b);
            return *this;
        }
#endif
        uint64_t carry = 0;
        for (size_t i = 0; i < N; ++i) {
            u128 s = u128(l[i]) + b.l[i] + carry;
            l[i] = uint64_t(s);
            carry = uint64_t(s >> 64);
        }
        reduce_once();
        return *this;
    }
    CUZK_HD_INLINE mont_field& operator-=(const mont_field& b) {
#if defined(CUZK_FF_HAVE_X86_ADD_SUB)
        if constexpr (N == 6 || N == 4) {
            sub_to(*this, *this, b);
            return *this;
        }
#endif
        uint64_t borrow = 0;
        for (size_t i = 0; i < N; ++i) {
            u128 d = u128(l[i]) - b.l[i] - borrow;
            l[i] = uint64_t(d);
            borrow = uint64_t(d >> 64) & 1;
        }
        if (borrow) {
            uint64_t carry = 0;
            for (size_t i = 0; i < N; ++i) {
                u128 s = u128(l[i]) + MODULUS[i] + carry;
                l[i] = uint64_t(s);
                carry = uint64_t(s >> 64);
            }
        }
        return *this;
    }
    // a * b * R^-1. On x86-64 hosts with ADX/BMI2 the 6- and 4-limb fields use the MULX/ADCX/ADOX
    // assembly of mont_mul_x86.hpp; everything else, device code included, runs mul_portable.
    CUZK_HD_INLINE mont_field& operator*=(const mont_field& b) {
        mul_to(*this, *this, b);
        return *this;
    }
    // Carry-free CIOS Montgomery multiplication: N^2 + N 64x64 products, no final carry word
    // because the modulus leaves the top bit free. The reference the assembly is tested against.
    static CUZK_HD_INLINE mont_field mul_portable(const mont_field& a, const mont_field& b) {
        uint64_t t[N] = {};
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) {
            u128 acc = u128(a.l[0]) * b.l[i] + t[0];
            uint64_t A = uint64_t(acc >> 64);
            uint64_t t0 = uint64_t(acc);
            uint64_t m = t0 * INV;
            u128 red = u128(m) * MODULUS[0] + t0;
            uint64_t C = uint64_t(red >> 64);
#pragma GCC unroll 8
            for (size_t j = 1; j < N; ++j) {
                acc = u128(a.l[j]) * b.l[i] + t[j] + A;
                A = uint64_t(acc >> 64);
                red = u128(m) * MODULUS[j] + uint64_t(acc) + C;
                C = uint64_t(red >> 64);
                t[j - 1] = uint64_t(red);
            }
            t[N - 1] = C + A;
        }
        mont_field r;
        for (size_t i = 0; i < N; ++i) r.l[i] = t[i];
        r.reduce_once();
        return r;
    }

    // Operands by reference where assembly computes into a fresh value: a by-value copy of a
    // just-stored element is read back with vector loads that cannot forward from the scalar
    // stores, a stall of ~10 cycles on every chained operation.
    CUZK_HD_INLINE friend mont_field operator+(const mont_field& a, const mont_field& b) {
        mont_field r;
#if defined(CUZK_FF_HAVE_X86_ADD_SUB)
        if constexpr (N == 6 || N == 4) {
            add_to(r, a, b);
            return r;
        }
#endif
        r = a;
        return r += b;
    }
    CUZK_HD_INLINE friend mont_field operator-(const mont_field& a, const mont_field& b) {
        mont_field r;
#if defined(CUZK_FF_HAVE_X86_ADD_SUB)
        if constexpr (N == 6 || N == 4) {
            sub_to(r, a, b);
            return r;
        }
#endif
        r = a;
        return r -= b;
    }
    // Both operands by reference: the product goes straight into a fresh value, no copy of |a|.
    CUZK_HD_INLINE friend mont_field operator*(const mont_field& a, const mont_field& b) {
        mont_field r;
        mul_to(r, a, b);
        return r;
    }
    CUZK_HD_INLINE mont_field operator-() const { return zero() - *this; }

    CUZK_HD_INLINE mont_field dbl() const { return *this + *this; }
    CUZK_HD_INLINE mont_field sqr() const { return *this * *this; }

    // this^e for an exponent given as limbs (square and multiply, MSB first).
    template <size_t M>
    CUZK_HD mont_field pow(const limbs<M>& e) const {
        mont_field r = one();
        for (size_t i = num_bits(e); i-- > 0;) {
            r = r.sqr();
            if (test_bit(e, i)) r *= *this;
        }
        return r;
    }
    CUZK_HD mont_field pow(uint64_t e) const { return pow(limbs<1>{e}); }

    // Inverse by Fermat; the inverse of zero is zero (callers that care check first).
    CUZK_HD mont_field inverse() const {
        repr_t e = MODULUS;
        repr_t two{};
        two[0] = 2;
        sub_borrow(e, two);
        return pow(e);
    }

    // Legendre symbol: 1 for a non-zero square, -1 (as p-1) for a non-square, 0 for zero.
    CUZK_HD int legendre() const {
        if (is_zero()) return 0;
        mont_field t = pow(shr1(minus_one_repr()));
        return t.is_one() ? 1 : -1;
    }

    // Square root when it exists; returns false otherwise. Uses the (p+1)/4 exponent where
    // p = 3 mod 4, Tonelli-Shanks otherwise.
    CUZK_HD bool sqrt(mont_field& out) const {
        if (is_zero()) {
            out = zero();
            return true;
        }
        if ((MODULUS[0] & 3) == 3) {
            repr_t e = MODULUS;
            repr_t one_r{};
            one_r[0] = 1;
            add_carry(e, one_r);
            e = shr1(shr1(e));
            mont_field c = pow(e);
            if (c.sqr() != *this) return false;
            out = c;
            return true;
        }
        return tonelli_shanks(out);
    }

    // True when the canonical value exceeds (p-1)/2: the zcash "lexicographically largest" test.
    CUZK_HD bool is_lexicographically_largest() const {
        repr_t c = to_canonical();
        repr_t half = shr1(minus_one_repr());
        for (size_t i = N; i-- > 0;) {
            if (c[i] != half[i]) return c[i] > half[i];
        }
        return false;
    }

    // Big-endian canonical bytes (BYTES long), as zcash and Filecoin hex strings write Fp.
    void to_bytes_be(uint8_t* out) const {
        repr_t c = to_canonical();
        for (size_t i = 0; i < BYTES; ++i) out[BYTES - 1 - i] = uint8_t(c[i / 8] >> (8 * (i % 8)));
    }
    void to_bytes_le(uint8_t* out) const {
        repr_t c = to_canonical();
        for (size_t i = 0; i < BYTES; ++i) out[i] = uint8_t(c[i / 8] >> (8 * (i % 8)));
    }
    // Returns false when the bytes encode a value >= MODULUS (non-canonical).
    static bool from_bytes_be(const uint8_t* in, mont_field& out) {
        repr_t c{};
        for (size_t i = 0; i < BYTES; ++i) c[i / 8] |= uint64_t(in[BYTES - 1 - i]) << (8 * (i % 8));
        return from_repr_checked(c, out);
    }
    static bool from_bytes_le(const uint8_t* in, mont_field& out) {
        repr_t c{};
        for (size_t i = 0; i < BYTES; ++i) c[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
        return from_repr_checked(c, out);
    }
    static bool from_repr_checked(const repr_t& c, mont_field& out) {
        if (geq(c, MODULUS)) return false;
        out = from_canonical(c);
        return true;
    }
    // Reduces arbitrary limbs modulo MODULUS (wide random values, hash outputs).
    static mont_field from_repr_reduced(repr_t c) {
        while (geq(c, MODULUS)) sub_borrow(c, MODULUS);
        return from_canonical(c);
    }

    // Uniform element from a 64-bit generator, by rejection sampling.
    template <class Rng>
    static mont_field random(Rng& rng) {
        for (;;) {
            repr_t c{};
            for (size_t i = 0; i < N; ++i) c[i] = rng();
            size_t top = BITS % 64;
            if (top != 0) c[N - 1] &= (uint64_t(1) << top) - 1;
            if (!geq(c, MODULUS)) return from_canonical(c);
        }
    }

    static constexpr repr_t minus_one_repr() {
        repr_t e = MODULUS;
        repr_t one_r{};
        one_r[0] = 1;
        sub_borrow(e, one_r);
        return e;
    }

private:
    // r = a * b * R^-1; r may be a or b.
    static CUZK_HD_INLINE void mul_to(mont_field& r, const mont_field& a, const mont_field& b) {
#if defined(CUZK_FF_HAVE_X86_MONT_MUL)
        if constexpr (N == 6) {
            x86::mont_mul_6<mont_field>(r.l, a.l, b.l);
            return;
        } else if constexpr (N == 4) {
            x86::mont_mul_4<mont_field>(r.l, a.l, b.l);
            return;
        }
#endif
        r = mul_portable(a, b);
    }

#if defined(CUZK_FF_HAVE_X86_ADD_SUB)
    // r = a + b and r = a - b (mod p) in x86 assembly; r may be a or b. Only for N = 6 and 4.
    static inline __attribute__((always_inline)) void add_to(mont_field& r, const mont_field& a,
                                                             const mont_field& b) {
        if constexpr (N == 6) x86::mod_add_6<mont_field>(r.l, a.l, b.l);
        else x86::mod_add_4<mont_field>(r.l, a.l, b.l);
    }
    static inline __attribute__((always_inline)) void sub_to(mont_field& r, const mont_field& a,
                                                             const mont_field& b) {
        if constexpr (N == 6) x86::mod_sub_6<mont_field>(r.l, a.l, b.l);
        else x86::mod_sub_4<mont_field>(r.l, a.l, b.l);
    }
#endif

    CUZK_HD_INLINE void reduce_once() {
        uint64_t t[N];
        uint64_t borrow = 0;
        for (size_t i = 0; i < N; ++i) {
            u128 d = u128(l[i]) - MODULUS[i] - borrow;
            t[i] = uint64_t(d);
            borrow = uint64_t(d >> 64) & 1;
        }
        if (!borrow) {
            for (size_t i = 0; i < N; ++i) l[i] = t[i];
        }
    }

    CUZK_HD bool tonelli_shanks(mont_field& out) const {
        if (legendre() != 1) return false;
        // p - 1 = q * 2^s with q odd.
        repr_t q = minus_one_repr();
        size_t s = 0;
        while ((q[0] & 1) == 0) {
            q = shr1(q);
            ++s;
        }
        // Smallest quadratic non-residue.
        mont_field z = from_u64(2);
        while (z.legendre() != -1) z += one();
        mont_field c = z.pow(q);
        repr_t q1 = q;
        repr_t one_r{};
        one_r[0] = 1;
        add_carry(q1, one_r);
        mont_field x = pow(shr1(q1));
        mont_field t = pow(q);
        size_t m = s;
        while (!t.is_one()) {
            size_t i = 0;
            mont_field t2 = t;
            while (!t2.is_one()) {
                t2 = t2.sqr();
                ++i;
            }
            mont_field b = c;
            for (size_t j = 0; j + i + 1 < m; ++j) b = b.sqr();
            x *= b;
            c = b.sqr();
            t *= c;
            m = i;
        }
        out = x;
        return true;
    }
};

}  // namespace cuzk::ff
