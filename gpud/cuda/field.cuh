// Montgomery prime fields on the device: 32-bit limbs, PTX multiply-add carry chains.
//
// Names: one per field and side, as the host's. Inside cuzk::cuda, fp_t, fr_t and fp2_t are the device
// fields (dev_field over the host field type, and ff::fp2_over, common/ff/fp2.hpp, over the device Fp); the
// host ones are always written ff::fp_t, ff::fr_t, ff::fp2_t, so that an interface shared with host code
// (msm.hpp, ntt.hpp) names the host types under nvcc too. The two sides share their bits: N64
// little-endian 64-bit limbs are 2*N64 little-endian 32-bit limbs and R = 2^(64 N64) = 2^(32 N) either way,
// so arrays are copied between host and device without conversion, and one element becomes the other by
// explicit construction (fr_t(host) here, ff::fr_t(device) there). The modulus and -p^-1 are taken from
// the host field type at compile time; nothing is typed twice.
//
// Multiplication is Montgomery's in paired rows (mul_paired): every carry chain alternates the low and high
// words of its products, so that ptxas turns each pair into one 64-bit multiply-add with carry in and out
// (IMAD.WIDE.U32.X); a square is a multiplication. On an H200 it multiplies in Fp 1.54x and in Fr 1.36x as
// fast as separated operand scanning (2N-word product, then reduction) and keeps the 64-bit multiply-add
// pipe 96 % busy (ncu). The other schedules tried (bench/gpu/experiments/field_schedules.cuh, with why
// each lost) plug into dev_field's Schedule parameter.
// Carry chains are one PTX instruction per asm statement, in program order (asm volatile keeps the
// order, and nothing between them touches the carry flag), as sppark does.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/ff/bls12_381.hpp"
#include "common/ff/fp2.hpp"
#include "common/ff/hd.hpp"

// Qualifiers of this file's code: __host__ __device__ under nvcc (the host copies serve the unit tests of
// the arithmetic against the CPU field), plain C++ under g++.
#if defined(__CUDACC__)
#define CUZK_HD_NOINLINE __host__ __device__ __noinline__
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_HD_NOINLINE __attribute__((noinline))
#define CUZK_UNROLL _Pragma("GCC unroll 32")
#endif

namespace cuzk::cuda {

namespace ptx {
// Each wrapper is one PTX instruction on the device. On the host (unit tests of this file's arithmetic
// against the CPU field, tests/test_device_field_on_host.cpp) the carry flag CC.CF is emulated in a
// thread-local word with the same semantics: .cc writes it, c reads it; for subtraction it is the borrow.
#if !defined(__CUDA_ARCH__)
inline thread_local uint32_t host_cf = 0;
inline uint32_t host_add(uint64_t v, bool write) {
    if (write) host_cf = uint32_t(v >> 32);
    return uint32_t(v);
}
inline uint32_t host_sub(uint32_t a, uint32_t b, uint32_t borrow_in, bool write) {
    const uint64_t v = uint64_t(a) - uint64_t(b) - borrow_in;
    if (write) host_cf = uint32_t(v >> 63);
    return uint32_t(v);
}
inline uint32_t lo(uint32_t a, uint32_t b) { return uint32_t(uint64_t(a) * b); }
inline uint32_t hi(uint32_t a, uint32_t b) { return uint32_t((uint64_t(a) * b) >> 32); }
#define CUZK_PTX(dev_asm, host_expr) return (host_expr);
#else
#define CUZK_PTX(dev_asm, host_expr) \
    uint32_t r;                      \
    dev_asm;                         \
    return r;
#endif
CUZK_HD_INLINE uint32_t add_cc(uint32_t a, uint32_t b) {
    CUZK_PTX(asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)), host_add(uint64_t(a) + b, true))
}
CUZK_HD_INLINE uint32_t addc_cc(uint32_t a, uint32_t b) {
    CUZK_PTX(asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)),
             host_add(uint64_t(a) + b + host_cf, true))
}
CUZK_HD_INLINE uint32_t addc(uint32_t a, uint32_t b) {
    CUZK_PTX(asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)), host_add(uint64_t(a) + b + host_cf, false))
}
CUZK_HD_INLINE uint32_t sub_cc(uint32_t a, uint32_t b) {
    CUZK_PTX(asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)), host_sub(a, b, 0, true))
}
CUZK_HD_INLINE uint32_t subc_cc(uint32_t a, uint32_t b) {
    CUZK_PTX(asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)), host_sub(a, b, host_cf, true))
}
CUZK_HD_INLINE uint32_t subc(uint32_t a, uint32_t b) {
    CUZK_PTX(asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)), host_sub(a, b, host_cf, false))
}
CUZK_HD_INLINE uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    CUZK_PTX(asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)),
             host_add(uint64_t(lo(a, b)) + c, true))
}
CUZK_HD_INLINE uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    CUZK_PTX(asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)),
             host_add(uint64_t(lo(a, b)) + c + host_cf, true))
}
CUZK_HD_INLINE uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    CUZK_PTX(asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)),
             host_add(uint64_t(hi(a, b)) + c, true))
}
CUZK_HD_INLINE uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    CUZK_PTX(asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)),
             host_add(uint64_t(hi(a, b)) + c + host_cf, true))
}
CUZK_HD_INLINE uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
    CUZK_PTX(asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)),
             host_add(uint64_t(hi(a, b)) + c + host_cf, false))
}
#undef CUZK_PTX
}  // namespace ptx

// The host field's constants split into 32-bit words, evaluated at compile time.
template <class HostField>
struct field_words {
    static constexpr int N = int(HostField::N) * 2;
    struct words {
        uint32_t w[N];
    };
    static constexpr words split(const typename HostField::repr_t& r) {
        words out{};
        for (int i = 0; i < N; ++i) out.w[i] = uint32_t(r[size_t(i / 2)] >> (32 * (i % 2)));
        return out;
    }
    static constexpr words modulus() { return split(HostField::MODULUS); }
    static constexpr words one() { return split(HostField::R); }
    static constexpr words minus_two() {
        typename HostField::repr_t e = HostField::MODULUS;
        typename HostField::repr_t two{};
        two[0] = 2;
        ff::sub_borrow(e, two);
        return split(e);
    }
    static constexpr uint32_t inv() { return uint32_t(HostField::INV); }
    // R^3 mod p: one Montgomery multiplication takes an integer inverse (a R)^-1 to the form a^-1 R.
    static constexpr words r_cubed() { return split(ff::pow2_mod(3 * 64 * HostField::N, HostField::MODULUS)); }
};

// The multiplication the kernels use: paired rows (mul_paired below), a square being a multiplication.
// bench/gpu/experiments/field_schedules.cuh supplies other schedules in its place, to time and test them.
struct paired_schedule {
    template <class F>
    static CUZK_HD_INLINE F mul(const F& a, const F& b) { return F::mul_paired(a, b); }
    template <class F>
    static CUZK_HD_INLINE F sqr(const F& a) { return F::mul_paired(a, a); }
};

// |Inline| picks inlined or called multiplication (see mul_outline); both have the same layout.
template <class HostField, bool Inline = (HostField::N <= 4), class Schedule = paired_schedule>
struct alignas(16) dev_field {
    using host_t = HostField;
    using W = field_words<HostField>;
    static constexpr int N = W::N;
    uint32_t v[N];

    dev_field() = default;
    // The host element with the same bits (the same Montgomery form, see the top of this file), and back.
    CUZK_HD_INLINE explicit dev_field(const HostField& h) {
        static_assert(sizeof(HostField) == sizeof(v));
        memcpy(static_cast<void*>(v), static_cast<const void*>(&h), sizeof v);
    }
    CUZK_HD_INLINE explicit operator HostField() const {
        HostField h;
        memcpy(static_cast<void*>(&h), static_cast<const void*>(v), sizeof v);
        return h;
    }

    static CUZK_HD_INLINE dev_field zero() {
        dev_field r;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) r.v[i] = 0;
        return r;
    }
    static CUZK_HD_INLINE dev_field one() {
        constexpr auto R = W::one();
        dev_field r;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) r.v[i] = R.w[i];
        return r;
    }
    CUZK_HD_INLINE bool is_zero() const {
        uint32_t acc = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) acc |= v[i];
        return acc == 0;
    }
    CUZK_HD_INLINE bool is_one() const {
        constexpr auto R = W::one();
        uint32_t acc = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) acc |= v[i] ^ R.w[i];
        return acc == 0;
    }
    CUZK_HD_INLINE friend bool operator==(const dev_field& a, const dev_field& b) {
        uint32_t acc = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) acc |= a.v[i] ^ b.v[i];
        return acc == 0;
    }

    // r = t - p when t >= p, else t; t < 2p.
    static CUZK_HD_INLINE void reduce_once(uint32_t (&t)[N]) {
        constexpr auto P = W::modulus();
        uint32_t s[N];
        s[0] = ptx::sub_cc(t[0], P.w[0]);
CUZK_UNROLL
        for (int i = 1; i < N; ++i) s[i] = ptx::subc_cc(t[i], P.w[i]);
        uint32_t borrow = ptx::subc(0, 0);  // 0xffffffff when t < p
CUZK_UNROLL
        for (int i = 0; i < N; ++i) t[i] = borrow ? t[i] : s[i];
    }

    CUZK_HD_INLINE friend dev_field operator+(const dev_field& a, const dev_field& b) {
        // Both moduli leave a spare top bit, so a + b < 2p never carries out of N words.
        dev_field r;
        r.v[0] = ptx::add_cc(a.v[0], b.v[0]);
CUZK_UNROLL
        for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(a.v[i], b.v[i]);
        r.v[N - 1] = ptx::addc(a.v[N - 1], b.v[N - 1]);
        reduce_once(r.v);
        return r;
    }
    CUZK_HD_INLINE friend dev_field operator-(const dev_field& a, const dev_field& b) {
        constexpr auto P = W::modulus();
        dev_field r;
        r.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
CUZK_UNROLL
        for (int i = 1; i < N; ++i) r.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
        uint32_t mask = ptx::subc(0, 0);  // all ones on borrow: add p back
        r.v[0] = ptx::add_cc(r.v[0], P.w[0] & mask);
CUZK_UNROLL
        for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(r.v[i], P.w[i] & mask);
        r.v[N - 1] = ptx::addc(r.v[N - 1], P.w[N - 1] & mask);
        return r;
    }
    CUZK_HD_INLINE dev_field operator-() const { return zero() - *this; }
    CUZK_HD_INLINE dev_field dbl() const { return *this + *this; }
    CUZK_HD_INLINE dev_field& operator+=(const dev_field& b) { return *this = *this + b; }
    CUZK_HD_INLINE dev_field& operator-=(const dev_field& b) { return *this = *this - b; }
    CUZK_HD_INLINE dev_field& operator*=(const dev_field& b) { return *this = *this * b; }

    // Montgomery reduction of the 2N-word t: returns t * 2^(-32N) mod p, for t < p * 2^(32N).
    // Row i adds m p at word i (m = t[i] (-p^-1) makes word i zero). The carry out of word i+N
    // is held in |pending| and added at word i+N+1 by the next row; after the last row it is zero
    // because the result is < 2p < 2^(32N).
    static CUZK_HD_INLINE dev_field redc(uint32_t (&t)[2 * N]) {
        constexpr auto P = W::modulus();
        constexpr uint32_t INV = W::inv();
        uint32_t pending = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            uint32_t m = t[i] * INV;
            t[i] = ptx::mad_lo_cc(m, P.w[0], t[i]);
CUZK_UNROLL
            for (int j = 1; j < N; ++j) t[i + j] = ptx::madc_lo_cc(m, P.w[j], t[i + j]);
            t[i + N] = ptx::addc_cc(t[i + N], pending);
            uint32_t c = ptx::addc(0, 0);
            t[i + 1] = ptx::mad_hi_cc(m, P.w[0], t[i + 1]);
CUZK_UNROLL
            for (int j = 1; j < N; ++j) t[i + j + 1] = ptx::madc_hi_cc(m, P.w[j], t[i + j + 1]);
            pending = ptx::addc(c, 0);
        }
        dev_field r;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) r.v[i] = t[N + i];
        reduce_once(r.v);
        return r;
    }

    // One row of mul_paired: t += x y_i (x = a, y_i = b_i) then t += m p, where t = E + O + c and c is a
    // carry into word 0 (0 or 1). Products x_j y_i of even j go to E (words 0 .. N-1, carry to word N, zero
    // until then), odd j to O (words 1 .. N); O's word 0 and E's are the row's only contributions to word 0,
    // so m = (E[0] + O[0]) (-p^-1) needs no carry chain. After the row E[0] + O[0] is 0 or 2^32; c becomes
    // that carry. With t < 2p < 2^(32N) at a row's start, the row's sum is < 2p + 2^33 p < 2^(32(N+1)),
    // so neither E nor O carries out of word N; the shifted result is < 2p again.
    static CUZK_HD_INLINE void paired_row(uint32_t (&E)[N + 1], uint32_t (&O)[N + 1], uint32_t& c,
                                          const uint32_t (&x)[N], uint32_t y, bool first) {
        if (first) {
            E[0] = ptx::mad_lo_cc(x[0], y, E[0]);
        } else {
            (void)ptx::add_cc(c, 0xffffffffu);  // carry flag = (c != 0)
            E[0] = ptx::madc_lo_cc(x[0], y, E[0]);
        }
        E[1] = ptx::madc_hi_cc(x[0], y, E[1]);
CUZK_UNROLL
        for (int j = 2; j < N; j += 2) {
            E[j] = ptx::madc_lo_cc(x[j], y, E[j]);
            E[j + 1] = ptx::madc_hi_cc(x[j], y, E[j + 1]);
        }
        E[N] = ptx::addc(E[N], 0);
        O[1] = ptx::mad_lo_cc(x[1], y, O[1]);
        O[2] = ptx::madc_hi_cc(x[1], y, O[2]);
CUZK_UNROLL
        for (int j = 3; j < N - 1; j += 2) {
            O[j] = ptx::madc_lo_cc(x[j], y, O[j]);
            O[j + 1] = ptx::madc_hi_cc(x[j], y, O[j + 1]);
        }
        O[N - 1] = ptx::madc_lo_cc(x[N - 1], y, O[N - 1]);
        O[N] = ptx::madc_hi(x[N - 1], y, O[N]);

        add_mp_and_shift<false>(E, O, c, (E[0] + O[0]) * W::inv());
    }

    // The second half of a paired row: t += m p (even j of p into E, odd j into O, the chains of
    // paired_row), then the carry out of word 0 (E[0] + O[0] is 0 or 2^32) into c and the shift down one
    // word. CarryIn: the caller has set the carry flag, which E's chain adds at word 0.
    template <bool CarryIn>
    static CUZK_HD_INLINE void add_mp_and_shift(uint32_t (&E)[N + 1], uint32_t (&O)[N + 1], uint32_t& c,
                                                uint32_t m) {
        constexpr auto P = W::modulus();
        if constexpr (CarryIn) E[0] = ptx::madc_lo_cc(m, P.w[0], E[0]);
        else E[0] = ptx::mad_lo_cc(m, P.w[0], E[0]);
        E[1] = ptx::madc_hi_cc(m, P.w[0], E[1]);
CUZK_UNROLL
        for (int j = 2; j < N; j += 2) {
            E[j] = ptx::madc_lo_cc(m, P.w[j], E[j]);
            E[j + 1] = ptx::madc_hi_cc(m, P.w[j], E[j + 1]);
        }
        E[N] = ptx::addc(E[N], 0);
        O[1] = ptx::mad_lo_cc(m, P.w[1], O[1]);
        O[2] = ptx::madc_hi_cc(m, P.w[1], O[2]);
CUZK_UNROLL
        for (int j = 3; j < N - 1; j += 2) {
            O[j] = ptx::madc_lo_cc(m, P.w[j], O[j]);
            O[j + 1] = ptx::madc_hi_cc(m, P.w[j], O[j + 1]);
        }
        O[N - 1] = ptx::madc_lo_cc(m, P.w[N - 1], O[N - 1]);
        O[N] = ptx::madc_hi(m, P.w[N - 1], O[N]);

        (void)ptx::add_cc(E[0], O[0]);
        c = ptx::addc(0, 0);
CUZK_UNROLL
        for (int j = 0; j < N; ++j) {
            E[j] = E[j + 1];
            O[j] = O[j + 1];
        }
        E[N] = O[N] = 0;
    }

    // The value E + O + c the paired rows leave (c a carry into word 0), as N words: it is < 2p.
    static CUZK_HD_INLINE dev_field rows_sum(const uint32_t (&E)[N + 1], const uint32_t (&O)[N + 1], uint32_t c) {
        dev_field r;
        (void)ptx::add_cc(c, 0xffffffffu);
        r.v[0] = ptx::addc_cc(E[0], O[0]);
CUZK_UNROLL
        for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(E[i], O[i]);
        r.v[N - 1] = ptx::addc(E[N - 1], O[N - 1]);
        return r;
    }

    // Rows alternate which accumulator takes the even products: after the one-word shift, the word pairs
    // the odd chain wrote are where the next row's even chain reads its pairs, so the 64-bit register pairs
    // line up from row to row without moves.
    static CUZK_HD_INLINE dev_field mul_paired(const dev_field& a, const dev_field& b) {
        static_assert(N % 2 == 0 && N >= 4);
        uint32_t A[N + 1], B[N + 1], c = 0;
CUZK_UNROLL
        for (int i = 0; i <= N; ++i) A[i] = B[i] = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            if (i % 2 == 0) paired_row(A, B, c, a.v, b.v[i], i == 0);
            else paired_row(B, A, c, a.v, b.v[i], false);
        }
        dev_field r = rows_sum(A, B, c);
        reduce_once(r.v);
        return r;
    }

    // Fp multiplications (~600 instructions) are called, not inlined: a curve addition holds 14 of
    // them (42 for G2), and inlining every one made a single translation unit take ptxas over ten
    // minutes per architecture. The call costs a few dozen instructions of argument moves. Fr (NTT
    // butterflies, one multiplication each) stays inline.
    static CUZK_HD_NOINLINE dev_field mul_outline(const dev_field a, const dev_field b) { return Schedule::mul(a, b); }
    static CUZK_HD_NOINLINE dev_field sqr_outline(const dev_field a) { return Schedule::sqr(a); }
    CUZK_HD_INLINE friend dev_field operator*(const dev_field& a, const dev_field& b) {
        if constexpr (!Inline) return mul_outline(a, b);
        else return Schedule::mul(a, b);
    }
    CUZK_HD_INLINE dev_field sqr() const {
        if constexpr (!Inline) return sqr_outline(*this);
        else return Schedule::sqr(*this);
    }

    // Montgomery form -> canonical integer (multiply by 1).
    CUZK_HD_INLINE dev_field from_montgomery() const {
        uint32_t t[2 * N];
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            t[i] = v[i];
            t[N + i] = 0;
        }
        return redc(t);
    }

    // The Montgomery form x^-1 R of the inverse from the integer inverse (x R)^-1 of the form x R: one
    // multiplication by R^3 ((x R)^-1 R^3 / R).
    static CUZK_HD_INLINE dev_field from_integer_inverse(const uint32_t (&inv)[N]) {
        constexpr auto R3 = W::r_cubed();
        dev_field x, r3;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            x.v[i] = inv[i];
            r3.v[i] = R3.w[i];
        }
        return x * r3;
    }

    // ---- helpers of inverse_bingcd -------------------------------------------------------------
    // Binary-GCD steps per outer iteration: the four factors stay within 2^STEPS, so they fit in int32_t
    // and every column sum below in 63 bits; the stand-ins are 2 STEPS + 2 = 62 bits.
    static constexpr int BINGCD_STEPS = 30;
    static constexpr int modulus_bits() {
        constexpr auto P = W::modulus();
        int top = N - 1;
        while (top > 0 && P.w[top] == 0) --top;
        int bits = 32 * top;
        for (uint32_t w = P.w[top]; w; w >>= 1) ++bits;
        return bits;
    }
    static CUZK_HD_INLINE int count_leading_zeros(uint32_t w) {
#if defined(__CUDA_ARCH__)
        return __clz(int(w));
#else
        return w ? __builtin_clz(w) : 32;
#endif
    }
    // The low BINGCD_STEPS bits of x, below its bits [n - 32, n) (n >= 62; x < 2^n).
    static CUZK_HD_INLINE uint64_t stand_in(const uint32_t (&x)[N], int n) {
        const int s = n - 32, li = s / 32, sh = s % 32;
        uint32_t lo = 0, hi = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            lo = i == li ? x[i] : lo;
            hi = i == li + 1 ? x[i] : hi;
        }
        const uint32_t top = sh ? (lo >> sh) | (hi << (32 - sh)) : lo;
        return (uint64_t(top) << BINGCD_STEPS) | (x[0] & ((1u << BINGCD_STEPS) - 1));
    }
    // out = |x f + y g| / 2^STEPS (exact: the low STEPS bits are zero); returns whether x f + y g < 0.
    // |f| + |g| <= 2^STEPS, so every column sum fits in 63 bits.
    static CUZK_HD_INLINE bool combine_shift(const uint32_t (&x)[N], const uint32_t (&y)[N], int32_t f, int32_t g,
                                             uint32_t (&out)[N]) {
        uint32_t t[N + 1];
        int64_t carry = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            const int64_t acc = int64_t(x[i]) * f + int64_t(y[i]) * g + carry;
            t[i] = uint32_t(acc);
            carry = acc >> 32;
        }
        t[N] = uint32_t(carry);
        const bool negative = carry < 0;
        if (negative) {  // two's complement of the N + 1 words
            uint32_t c = 1;
CUZK_UNROLL
            for (int i = 0; i <= N; ++i) {
                const uint64_t w = uint64_t(~t[i]) + c;
                t[i] = uint32_t(w);
                c = uint32_t(w >> 32);
            }
        }
CUZK_UNROLL
        for (int i = 0; i < N; ++i) out[i] = (t[i] >> BINGCD_STEPS) | (t[i + 1] << (32 - BINGCD_STEPS));
        return negative;
    }
    // out = (x f + y g) / 2^STEPS mod p, in [0, p), for x, y in [0, p): q p is added so that the low STEPS
    // bits vanish (q = -(x f + y g) / p mod 2^STEPS), then the exact shift leaves a value in (-p, 2p).
    static CUZK_HD_INLINE void combine_mod(const uint32_t (&x)[N], const uint32_t (&y)[N], int32_t f, int32_t g,
                                           uint32_t (&out)[N]) {
        constexpr auto P = W::modulus();
        const uint32_t t0 = uint32_t(int64_t(x[0]) * f + int64_t(y[0]) * g);
        const uint32_t q = (t0 * W::inv()) & ((1u << BINGCD_STEPS) - 1);
        uint32_t t[N + 1];
        int64_t carry = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            const int64_t acc = int64_t(x[i]) * f + int64_t(y[i]) * g + int64_t(uint64_t(q) * P.w[i]) + carry;
            t[i] = uint32_t(acc);
            carry = acc >> 32;
        }
        t[N] = uint32_t(carry);
        const bool negative = carry < 0;
        uint32_t r[N];
CUZK_UNROLL
        for (int i = 0; i < N; ++i) r[i] = (t[i] >> BINGCD_STEPS) | (t[i + 1] << (32 - BINGCD_STEPS));
        // The shifted value's sign is t[N]'s: negative means r (as N words) is 2^(32N) + value, value > -p.
        if (negative) {
            r[0] = ptx::add_cc(r[0], P.w[0]);
CUZK_UNROLL
            for (int i = 1; i < N; ++i) r[i] = ptx::addc_cc(r[i], P.w[i]);
        } else {
            reduce_once(r);
        }
CUZK_UNROLL
        for (int i = 0; i < N; ++i) out[i] = r[i];
    }

    // Inverse by the binary extended Euclidean algorithm; zero maps to zero. Variable time: for public
    // values only (the MSM's batch-affine denominators). ~2 BITS steps of N-word shifts and subtractions:
    // where one thread inverts alone, with no other warps to hide the latency of inverse()'s chain of
    // ~1.5 BITS dependent multiplications, this finishes several times sooner.
    // Invariants: x1 (a R) = u and x2 (a R) = v (mod p), with x1, x2 in [0, p); u or v reaches 1.
    CUZK_HD dev_field inverse_binary() const {
        if (is_zero()) return zero();
        constexpr auto P = W::modulus();
        uint32_t u[N], v[N], x1[N], x2[N];
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            u[i] = this->v[i];
            v[i] = P.w[i];
            x1[i] = i == 0;
            x2[i] = 0;
        }
        auto is_unit = [](const uint32_t(&a)[N]) {
            uint32_t acc = a[0] ^ 1u;
CUZK_UNROLL
            for (int i = 1; i < N; ++i) acc |= a[i];
            return acc == 0;
        };
        // a / 2 for even a; x / 2 mod p: (x + p) / 2 when x is odd (x + p < 2^(32N), p < 2^(32N - 1)).
        auto halve = [](uint32_t(&a)[N]) {
CUZK_UNROLL
            for (int i = 0; i < N - 1; ++i) a[i] = (a[i] >> 1) | (a[i + 1] << 31);
            a[N - 1] >>= 1;
        };
        auto halve_mod = [&](uint32_t(&x)[N]) {
            if (x[0] & 1) {
                x[0] = ptx::add_cc(x[0], P.w[0]);
CUZK_UNROLL
                for (int i = 1; i < N; ++i) x[i] = ptx::addc_cc(x[i], P.w[i]);
            }
            halve(x);
        };
        // a -= b; returns whether it borrowed (a < b), a then holds a - b + 2^(32N).
        auto sub = [](uint32_t(&a)[N], const uint32_t(&b)[N]) {
            a[0] = ptx::sub_cc(a[0], b[0]);
CUZK_UNROLL
            for (int i = 1; i < N; ++i) a[i] = ptx::subc_cc(a[i], b[i]);
            return ptx::subc(0, 0) != 0;
        };
        auto sub_mod = [&](uint32_t(&x)[N], const uint32_t(&y)[N]) {
            if (sub(x, y)) {
                x[0] = ptx::add_cc(x[0], P.w[0]);
CUZK_UNROLL
                for (int i = 1; i < N; ++i) x[i] = ptx::addc_cc(x[i], P.w[i]);
            }
        };
        while (!is_unit(u) && !is_unit(v)) {
            while ((u[0] & 1) == 0) {
                halve(u);
                halve_mod(x1);
            }
            while ((v[0] & 1) == 0) {
                halve(v);
                halve_mod(x2);
            }
            uint32_t t[N];
CUZK_UNROLL
            for (int i = 0; i < N; ++i) t[i] = u[i];
            if (!sub(t, v)) {  // u >= v
CUZK_UNROLL
                for (int i = 0; i < N; ++i) u[i] = t[i];
                sub_mod(x1, x2);
            } else {
                sub(v, u);
                sub_mod(x2, x1);
            }
        }
        const bool u_done = is_unit(u);
CUZK_UNROLL
        for (int i = 0; i < N; ++i) x1[i] = u_done ? x1[i] : x2[i];
        return from_integer_inverse(x1);
    }

    // Inverse by the binary GCD with approximated operands (Pornin, "Optimized Binary GCD for Modular
    // Inversion", 2020): each outer iteration runs STEPS binary-GCD steps on 62-bit stand-ins for a and b
    // (their low 30 bits and their top 32 bits at the longer one's length), collecting the steps in four
    // small signed factors, then applies those to the N-word a, b (exact division by 2^STEPS) and to u, v
    // (division by 2^STEPS mod p, Montgomery-style). ~26 outer iterations for Fp, against ~760 N-word steps
    // of inverse_binary, and no branch a warp can split on. Invariants: a = u (x R) and b = v (x R) mod p for
    // the input x R; b stays odd, a reaches 0, b then is gcd = 1 and v = (x R)^-1. Returns false if b is not
    // 1 after the planned iterations (the analysis says it always is; inverse_fast falls back then).
    // Variable time (public values only: the MSM's batch-affine denominators).
    CUZK_HD bool inverse_bingcd(dev_field& out) const {
        if (is_zero()) {
            out = zero();
            return true;
        }
        constexpr auto P = W::modulus();
        constexpr int STEPS = BINGCD_STEPS;
        constexpr int MOD_BITS = modulus_bits();
        constexpr int OUTER = (2 * MOD_BITS - 1 + STEPS - 1) / STEPS;
        uint32_t a[N], b[N], u[N], v[N];
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            a[i] = this->v[i];
            b[i] = P.w[i];
            u[i] = i == 0;
            v[i] = 0;
        }
        for (int it = 0; it < OUTER; ++it) {
            // n = max(len a, len b, 62): the stand-ins are exact while both fit in 62 bits.
            int n = 62;
CUZK_UNROLL
            for (int i = N - 1; i >= 0; --i) {
                const uint32_t w = a[i] | b[i];
                const int len = w ? 32 * i + 32 - count_leading_zeros(w) : 0;
                n = len > n ? len : n;
            }
            uint64_t ah = stand_in(a, n), bh = stand_in(b, n);
            int32_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
            for (int j = 0; j < STEPS; ++j) {
                const bool odd = ah & 1;
                if (odd && ah < bh) {
                    const uint64_t t = ah;
                    ah = bh;
                    bh = t;
                    const int32_t tf = f0, tg = g0;
                    f0 = f1;
                    g0 = g1;
                    f1 = tf;
                    g1 = tg;
                }
                if (odd) {
                    ah -= bh;
                    f0 -= f1;
                    g0 -= g1;
                }
                ah >>= 1;
                f1 *= 2;
                g1 *= 2;
            }
            uint32_t na[N], nb[N], nu[N], nv[N];
            if (combine_shift(a, b, f0, g0, na)) {
                f0 = -f0;
                g0 = -g0;
            }
            if (combine_shift(a, b, f1, g1, nb)) {
                f1 = -f1;
                g1 = -g1;
            }
            combine_mod(u, v, f0, g0, nu);
            combine_mod(u, v, f1, g1, nv);
CUZK_UNROLL
            for (int i = 0; i < N; ++i) {
                a[i] = na[i];
                b[i] = nb[i];
                u[i] = nu[i];
                v[i] = nv[i];
            }
        }
        uint32_t not_one = b[0] ^ 1u;
CUZK_UNROLL
        for (int i = 1; i < N; ++i) not_one |= b[i];
        if (not_one) return false;
        out = from_integer_inverse(v);
        return true;
    }
    // inverse_bingcd, or inverse_binary where it did not finish (not expected; kept so a result is never wrong).
    CUZK_HD dev_field inverse_fast() const {
        dev_field r;
        return inverse_bingcd(r) ? r : inverse_binary();
    }

    // Inverse by Fermat (a^(p-2)); zero maps to zero. ~BITS squarings + BITS/2 multiplications.
    CUZK_HD dev_field inverse() const {
        constexpr auto E = W::minus_two();
        dev_field r = one();
        for (int i = N - 1; i >= 0; --i) {
            for (int b = 31; b >= 0; --b) {
                r = r.sqr();
                if ((E.w[i] >> b) & 1) r = r * *this;
            }
        }
        return r;
    }
};

// The fields the backend's kernels use, under the host's names (ff::fp_t etc.) in this namespace. Fp
// multiplications are called (see mul_outline), Fr ones inlined.
using fp_t = dev_field<ff::fp_t, false>;
using fr_t = dev_field<ff::fr_t, true>;
// Fp with its multiplications inlined (same layout): for the MSM's accumulation kernel, where the bucket
// step then fits in 140 registers without the calls' argument moves (bench/gpu/experiments/field_bench.cu).
using fp_inlined_t = dev_field<ff::fp_t, true>;
// Fp2 = Fp[u] / (u^2 + 1): the host's template (common/ff/fp2.hpp) over the device Fp.
using fp2_t = ff::fp2_over<fp_t>;

// The device field of a host field, for code templated on the host's types (msm_context<ff::fp_t> is
// instantiated in msm.cu and called from host-only .cpp files, so its interface keeps the host types).
template <class HostField>
struct device_field;
template <>
struct device_field<ff::fp_t> {
    using type = fp_t;
};
template <>
struct device_field<ff::fr_t> {
    using type = fr_t;
};
template <>
struct device_field<ff::fp2_t> {
    using type = fp2_t;
};
template <class HostField>
using device_field_t = typename device_field<HostField>::type;

}  // namespace cuzk::cuda
