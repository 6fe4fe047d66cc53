// Montgomery prime fields on the device: 32-bit limbs, PTX multiply-add carry chains.
//
// The representation is bit-for-bit the host one (common/ff/mont_field.hpp): N64 little-endian 64-bit
// limbs are 2*N64 little-endian 32-bit limbs and R = 2^(64 N64) = 2^(32 N) either way, so host
// fp_t/fr_t arrays are copied to and from the device without conversion. The modulus and -p^-1 are
// taken from the host field type at compile time; nothing is typed twice.
//
// Multiplication is Montgomery's, in one of several schedules (mont_mul below). The default, paired, makes
// every carry chain alternate the low and high words of its products so that ptxas turns each pair into
// one 64-bit multiply-add with carry in and out (IMAD.WIDE.U32.X): on an H200 it multiplies in Fp 1.54x and
// in Fr 1.36x as fast as separated operand scanning (sos: 2N-word product, then reduction), whose separate
// low and high chains cost an IMAD plus a carry-propagating IADD3.X per word (cuzk_bench_gpu_field and
// BENCHMARKS.md). The sos squaring (cross products once) is kept for the sos schedule; under paired a
// square is a multiplication. Paired keeps the H200's 64-bit multiply-add pipe 96 % busy (ncu), so a
// faster multiplication needs fewer IMAD.WIDE or another pipe: karatsuba (13 % fewer) multiplies 3 % faster
// alone but costs registers where several multiplications interleave (G1 MSM accumulation 4-9 % slower);
// hybrid moves the product to the FP64 units, but on an H200 those share issue with IMAD (their busy
// fractions add up to ~94 %), so it is 8 % slower. Both are kept, tested and timed for other GPUs.
// Carry chains are one PTX instruction per asm statement, in program order (asm volatile keeps the
// order, and nothing between them touches the carry flag), as sppark does.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/ff/bls12_381.hpp"
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
// against the CPU field, tests/test_cuda_field_host.cpp) the carry flag CC.CF is emulated in a
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
// The high word of (hi:lo) << n, 0 < n < 32.
CUZK_HD_INLINE uint32_t shl_pair(uint32_t lo_word, uint32_t hi_word, unsigned n) {
#if defined(__CUDA_ARCH__)
    return __funnelshift_l(lo_word, hi_word, n);
#else
    return (hi_word << n) | (lo_word >> (32 - n));
#endif
}
#undef CUZK_PTX
}  // namespace ptx

// Double-precision operations of the hybrid multiplication, each one instruction on the device with the
// rounding named (round to nearest, never contracted or reassociated); on the host the same IEEE operations
// (std::fma is exact before its one rounding, as DFMA is).
namespace f64 {
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ double fma(double a, double b, double c) { return __fma_rn(a, b, c); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double from_words(uint32_t hi, uint32_t lo) { return __hiloint2double(int(hi), int(lo)); }
__device__ __forceinline__ int64_t bits(double x) { return __double_as_longlong(x); }
#else
inline double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
inline double add(double a, double b) { return a + b; }  // no product beside it for g++ to fuse into
inline double from_words(uint32_t hi, uint32_t lo) {
    const uint64_t u = (uint64_t(hi) << 32) | lo;
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
}
inline int64_t bits(double x) {
    int64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}
#endif
}  // namespace f64

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

// How a Montgomery multiplication is scheduled (all give the same result; test_device_field_on_host checks
// each against the CPU field, cuzk_bench_gpu_field times them on a GPU):
//  - sos: the whole 2N-word product, then the word-by-word reduction (redc);
//  - cios: product and reduction interleaved row by row over an N+1-word accumulator (fewer live registers);
//  - even_odd: the product as two independent carry chains per row (the products a_j b_i whose words start
//    even and those whose words start odd land on disjoint words, so each chain covers its words with no
//    gaps), summed at the end: two chains the scheduler can overlap; then redc.
//  - paired: interleaved like cios, but every chain (a b_i and m p, even and odd j) runs over the low and
//    high words of each product in turn, so each madc.lo/madc.hi pair on the same operands becomes one
//    64-bit multiply-add with carry (IMAD.WIDE.U32.X) instead of two multiplies and two carry additions.
//    Squaring is a multiplication here.
//  - hybrid: the 2N-word product on the double-precision units (48-bit limbs, mul_hybrid below), the
//    reduction on the integer multiply-add units in paired rows: the two halves of a multiplication load
//    two different pipes, which the other schedules leave one of idle. Squaring computes each cross product once.
//  - karatsuba: the product by one level of subtractive Karatsuba (three N/2-word products in even/odd
//    accumulators), the reduction in paired rows as hybrid's: 3/4 of the product's multiply-adds.
//    Squaring is a multiplication here.
enum class mont_mul { sos, cios, even_odd, paired, hybrid, karatsuba };

// |Inline| picks inlined or called multiplication (see mul_outline); both have the same layout.
template <class HostField, bool Inline = (HostField::N <= 4), mont_mul Kind = mont_mul::sos>
struct alignas(16) dev_field {
    using host_t = HostField;
    using W = field_words<HostField>;
    static constexpr int N = W::N;
    uint32_t v[N];

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

    // Row i adds a * b[i] at word i: low halves then high halves. The partial product after row i
    // is < 2^(32(N+i+1)), so neither chain carries out of word i+N.
    static CUZK_HD_INLINE dev_field mul_inline(const dev_field& a, const dev_field& b) {
        uint32_t t[2 * N];
CUZK_UNROLL
        for (int i = 0; i < 2 * N; ++i) t[i] = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            t[i] = ptx::mad_lo_cc(a.v[0], b.v[i], t[i]);
CUZK_UNROLL
            for (int j = 1; j < N; ++j) t[i + j] = ptx::madc_lo_cc(a.v[j], b.v[i], t[i + j]);
            t[i + N] = ptx::addc(t[i + N], 0);
            t[i + 1] = ptx::mad_hi_cc(a.v[0], b.v[i], t[i + 1]);
CUZK_UNROLL
            for (int j = 1; j < N - 1; ++j) t[i + j + 1] = ptx::madc_hi_cc(a.v[j], b.v[i], t[i + j + 1]);
            t[i + N] = ptx::madc_hi(a.v[N - 1], b.v[i], t[i + N]);
        }
        return redc(t);
    }

    // Rows of a * b[i] + m p, one word shifted out per row. With t < 2p < 2^(32N) at a row's start the row's
    // sum is < 2p + 2^33 p < 2^(32(N+1)): N+1 words hold it and no chain carries out of word N; the
    // shifted result is < 2p again, so the usual final subtraction leaves r < p.
    static CUZK_HD_INLINE dev_field mul_cios(const dev_field& a, const dev_field& b) {
        constexpr auto P = W::modulus();
        constexpr uint32_t INV = W::inv();
        uint32_t t[N + 1];
CUZK_UNROLL
        for (int i = 0; i <= N; ++i) t[i] = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            t[0] = ptx::mad_lo_cc(a.v[0], b.v[i], t[0]);
CUZK_UNROLL
            for (int j = 1; j < N; ++j) t[j] = ptx::madc_lo_cc(a.v[j], b.v[i], t[j]);
            t[N] = ptx::addc(t[N], 0);
            const uint32_t m = t[0] * INV;  // t[0] is final once the low products are in
            t[1] = ptx::mad_hi_cc(a.v[0], b.v[i], t[1]);
CUZK_UNROLL
            for (int j = 1; j < N - 1; ++j) t[j + 1] = ptx::madc_hi_cc(a.v[j], b.v[i], t[j + 1]);
            t[N] = ptx::madc_hi(a.v[N - 1], b.v[i], t[N]);
            t[0] = ptx::mad_lo_cc(m, P.w[0], t[0]);  // word 0 becomes zero; only its carry matters
CUZK_UNROLL
            for (int j = 1; j < N; ++j) t[j] = ptx::madc_lo_cc(m, P.w[j], t[j]);
            t[N] = ptx::addc(t[N], 0);
            t[1] = ptx::mad_hi_cc(m, P.w[0], t[1]);
CUZK_UNROLL
            for (int j = 1; j < N - 1; ++j) t[j + 1] = ptx::madc_hi_cc(m, P.w[j], t[j + 1]);
            t[N] = ptx::madc_hi(m, P.w[N - 1], t[N]);
CUZK_UNROLL
            for (int j = 0; j < N; ++j) t[j] = t[j + 1];
            t[N] = 0;
        }
        dev_field r;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) r.v[i] = t[i];
        reduce_once(r.v);
        return r;
    }

    // The product in two accumulators (product_even_odd, whose chains each become 64-bit multiply-adds),
    // then the word-by-word reduction of sos.
    static CUZK_HD_INLINE dev_field mul_even_odd(const dev_field& a, const dev_field& b) {
        uint32_t t[2 * N];
        product_even_odd<N>(a.v, b.v, t);
        return redc(t);
    }

    // One row of mul_paired: t += x y_i (x = a, y_i = b_i) then t += m p, where t = E + O + c and c is a
    // carry into word 0 (0 or 1). Products x_j y_i of even j go to E (words 0 .. N-1, carry to word N, zero
    // until then), odd j to O (words 1 .. N); O's word 0 and E's are the row's only contributions to word 0,
    // so m = (E[0] + O[0]) (-p^-1) needs no carry chain. After the row E[0] + O[0] is 0 or 2^32; c becomes
    // that carry. Each of E and O is a part of a sum < 2^(32(N+1)) (t < 2p at a row's start, as in cios),
    // so neither carries out of word N.
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

    // --- hybrid: the product in double precision, the reduction in integer rows -------------------------
    //
    // Why: on an H200 a paired multiplication is bound by its 64-bit integer multiply-adds (IMAD.WIDE,
    // half the integer rate), while the double-precision pipe (64 fused multiply-adds per SM and clock)
    // idles. Here the a*b product goes to that pipe and only the Montgomery reduction (N rows of m p)
    // stays on the integer one, so that the scheduler can overlap one warp's product with another's
    // reduction. Measured on an H200 it does not: the FP64 pipe shares issue with IMAD there (ncu: their busy
    // fractions add up to ~94 %), and hybrid is 8 % slower than paired (BENCHMARKS.md, fifth session).
    //
    // Limbs: K = ceil(32N / 48) limbs of 48 bits, exact in a double. A product a_i b_j < 2^96 is split
    // exactly: s' = fma(a_i, b_j, s) rounds to a multiple of 2^48 because s stays in [2^100, 2^101)
    // (it starts at 2^100 and gains at most K 2^96 < 2^99), d = s - s' is exact (same binade), and
    // lo = fma(a_i, b_j, d) = a_i b_j - round(a_i b_j) is an exact integer, |lo| <= 2^47. Column k keeps
    // s_k (its rounded parts, biased by 2^100) and l_k (its remainders, |l_k| <= K 2^47); its value in
    // units of 2^(48k) is col_k = l_k + (s_{k-1} - 2^100) / 2^48, in [-2^50, 3 2^50). One more fma
    // forms col_k + 2^52 + 2^50 exactly, in [2^52, 2^53), so its bit pattern minus 0x4334 0000 0000 0000
    // is col_k as a 64-bit integer. Integer carries over the columns then give the 2N words.
    static constexpr int HYBRID_LIMBS = (32 * N + 47) / 48;

    // Limb k (bits 48k .. 48k+47) as a double: the bits under the exponent of 2^52, minus 2^52.
    static CUZK_HD_INLINE void to_limbs48(const dev_field& a, double (&x)[HYBRID_LIMBS]) {
        constexpr double TWO52 = 4503599627370496.0;
        auto word = [&](int i) -> uint32_t { return i < N ? a.v[i] : 0u; };
CUZK_UNROLL
        for (int k = 0; k < HYBRID_LIMBS; ++k) {
            const int w = (48 * k) / 32;  // first word; the limb starts at bit 0 (k even) or 16 (k odd)
            uint32_t lo, hi;
            if (k % 2 == 0) {
                lo = word(w);
                hi = word(w + 1) & 0xffffu;
            } else {
                lo = (word(w) >> 16) | (word(w + 1) << 16);
                hi = word(w + 1) >> 16;
            }
            x[k] = f64::add(f64::from_words(0x43300000u | hi, lo), -TWO52);
        }
    }

    // The 2N-word product a b (< 2^(64N)) from the double-precision columns. Square (b == a): each cross
    // product a_i a_j (i < j) once, against 2 a_j (exact, < 2^49): column k then holds at most K/2 cross
    // products < 2^97 and one square, so s stays below 2^100 + 9 2^96 and col_k below 20 2^47: the bounds
    // above still hold, with 36 products instead of 64 for Fp.
    template <bool Square = false>
    static CUZK_HD_INLINE void product_fp64(const dev_field& a, const dev_field& b, uint32_t (&t)[2 * N]) {
        constexpr int K = HYBRID_LIMBS;
        constexpr double TWO100 = 1267650600228229401496703205376.0;  // 2^100
        constexpr double TWO50 = 1125899906842624.0;
        constexpr double TWO_M48 = 1.0 / 281474976710656.0;          // 2^-48
        double x[K], y[K];
        to_limbs48(a, x);
        if constexpr (Square) {
CUZK_UNROLL
            for (int k = 0; k < K; ++k) y[k] = f64::add(x[k], x[k]);
        } else {
            to_limbs48(b, y);
        }
        int64_t col[2 * K];
        double s_prev = TWO100;  // column -1 holds nothing
CUZK_UNROLL
        for (int k = 0; k < 2 * K - 1; ++k) {
            double s = TWO100, l = 0.0;
CUZK_UNROLL
            for (int i = 0; i < K; ++i) {  // a fixed trip count, so that nvcc unrolls both loops
                const int j = k - i;
                if (j < 0 || j >= K || (Square && j < i)) continue;
                const double yj = Square && j == i ? x[j] : y[j];  // a square's diagonal is not doubled
                const double s2 = f64::fma(x[i], yj, s);
                const double d = f64::add(s, -s2);
                l = f64::add(l, f64::fma(x[i], yj, d));
                s = s2;
            }
            col[k] = f64::bits(f64::fma(s_prev, TWO_M48, f64::add(l, TWO50))) - int64_t(0x4334000000000000);
            s_prev = s;
        }
        col[2 * K - 1] = f64::bits(f64::fma(s_prev, TWO_M48, TWO50)) - int64_t(0x4334000000000000);
        // Carries: piece k is bits 48k .. 48k+47 of the product.
        uint64_t piece[2 * K];
        int64_t carry = 0;
CUZK_UNROLL
        for (int k = 0; k < 2 * K; ++k) {
            const int64_t v = col[k] + carry;
            piece[k] = uint64_t(v) & 0xffffffffffffull;
            carry = v >> 48;
        }
CUZK_UNROLL
        for (int w = 0; w < 2 * N; ++w) {
            const int k = (32 * w) / 48, off = 32 * w - 48 * k;  // off is 0, 16 or 32
            if (off == 0) t[w] = uint32_t(piece[k]);
            else if (off == 16) t[w] = uint32_t(piece[k] >> 16);
            else t[w] = uint32_t(piece[k] >> 32) | (k + 1 < 2 * K ? uint32_t(piece[k + 1] << 16) : 0u);
        }
    }

    // One reduction row of the paired form: t = E + O + c (c a carry into word 0, 0 or 1) gets m p added,
    // m making word 0 vanish, and is shifted down one word. Same chains and bounds as paired_row without
    // its x y_i half: t < 2^(32N) at each row's start, so t + m p < 2^(32(N+1)).
    static CUZK_HD_INLINE void reduce_row(uint32_t (&E)[N + 1], uint32_t (&O)[N + 1], uint32_t& c) {
        const uint32_t m = (E[0] + O[0] + c) * W::inv();
        (void)ptx::add_cc(c, 0xffffffffu);  // carry flag = c
        add_mp_and_shift<true>(E, O, c, m);
    }

    // --- karatsuba: one level of subtractive Karatsuba for the product, paired rows for the reduction ----
    //
    // Why: paired is bound by its 64-bit multiply-adds (2 N^2 of them: N^2 for the product, N^2 for the
    // reduction). Three half-size products instead of one full one take the product's share from N^2 to
    // 3 N^2 / 4 (Fp: 288 -> 252 multiply-adds), for a few dozen carry additions on the other integer pipe.

    // (Also the product of the even_odd schedule, M = N.)
    // out = x y (2M words) as two accumulators, each chain alternating the low and high words of its
    // products, so each low/high pair of one product is one IMAD.WIDE.U32.X. That instruction's 64-bit
    // addend is an aligned register pair, so A only ever takes chains whose pairs start at even words and B
    // chains whose pairs start at odd words: in row i the products x_j y_i with i + j even go to A, the others
    // to B (the two swap which j they take from row to row, as paired does), and ptxas needs no moves to
    // realign them. A chain's carry lands in the word after it, which holds at most the previous row's carry.
    template <int M>
    static CUZK_HD_INLINE void product_even_odd(const uint32_t* x, const uint32_t* y, uint32_t (&out)[2 * M]) {
        static_assert(M % 2 == 0 && M >= 4);
        uint32_t B[2 * M];
CUZK_UNROLL
        for (int i = 0; i < 2 * M; ++i) out[i] = B[i] = 0;
        // One chain of row i: products x_j y_i for j = j0, j0 + 2, ... into acc at words i + j, i + j + 1.
        auto chain = [&](uint32_t(&acc)[2 * M], int i, int j0) {
            acc[i + j0] = ptx::mad_lo_cc(x[j0], y[i], acc[i + j0]);
            acc[i + j0 + 1] = ptx::madc_hi_cc(x[j0], y[i], acc[i + j0 + 1]);
CUZK_UNROLL
            for (int j = j0 + 2; j < M; j += 2) {
                acc[i + j] = ptx::madc_lo_cc(x[j], y[i], acc[i + j]);
                acc[i + j + 1] = ptx::madc_hi_cc(x[j], y[i], acc[i + j + 1]);
            }
            const int end = i + j0 + M;  // the word after the chain's last pair
            if (end < 2 * M) acc[end] = ptx::addc(acc[end], 0);  // else the product's top: no carry comes out
        };
CUZK_UNROLL
        for (int i = 0; i < M; ++i) {
            chain(out, i, i % 2);        // pairs at even words
            chain(B, i, 1 - i % 2);      // pairs at odd words
        }
        out[1] = ptx::add_cc(out[1], B[1]);
CUZK_UNROLL
        for (int i = 2; i < 2 * M - 1; ++i) out[i] = ptx::addc_cc(out[i], B[i]);
        out[2 * M - 1] = ptx::addc(out[2 * M - 1], B[2 * M - 1]);
    }

    // |x - y| of M-word x, y; returns all ones when x < y, else 0.
    template <int M>
    static CUZK_HD_INLINE uint32_t abs_diff(const uint32_t* x, const uint32_t* y, uint32_t (&d)[M]) {
        uint32_t e[M];
        d[0] = ptx::sub_cc(x[0], y[0]);
CUZK_UNROLL
        for (int i = 1; i < M; ++i) d[i] = ptx::subc_cc(x[i], y[i]);
        const uint32_t neg = ptx::subc(0, 0);
        e[0] = ptx::sub_cc(y[0], x[0]);
CUZK_UNROLL
        for (int i = 1; i < M; ++i) e[i] = ptx::subc_cc(y[i], x[i]);
CUZK_UNROLL
        for (int i = 0; i < M; ++i) d[i] = neg ? e[i] : d[i];
        return neg;
    }

    // T = a b (2N words) with a = a1 B^h + a0, b = b1 B^h + b0 (B = 2^32, h = N/2):
    // a0 b1 + a1 b0 = z0 + z2 + (a0 - a1)(b1 - b0), where z0 = a0 b0, z2 = a1 b1, and the last product is
    // |a0 - a1| |b1 - b0| with the sign of the two differences. The middle term is < 2 B^N: N + 1 words.
    static CUZK_HD_INLINE void product_karatsuba(const dev_field& a, const dev_field& b, uint32_t (&t)[2 * N]) {
        constexpr int H = N / 2;
        uint32_t z0[N], z2[N], m[N], da[H], db[H];
        product_even_odd<H>(a.v, b.v, z0);
        product_even_odd<H>(a.v + H, b.v + H, z2);
        const uint32_t sa = abs_diff<H>(a.v, a.v + H, da);
        const uint32_t sb = abs_diff<H>(b.v + H, b.v, db);
        product_even_odd<H>(da, db, m);
        // mid = z0 + z2 -+ m: subtracting is adding the complement and one (the result is >= 0).
        const uint32_t sub = sa ^ sb;
        uint32_t mid[N + 1];
        mid[0] = ptx::add_cc(z0[0], z2[0]);
CUZK_UNROLL
        for (int i = 1; i < N; ++i) mid[i] = ptx::addc_cc(z0[i], z2[i]);
        mid[N] = ptx::addc(0, 0);
        (void)ptx::add_cc(sub, sub);  // carry flag = (sub != 0): the +1 of the complement
CUZK_UNROLL
        for (int i = 0; i < N; ++i) mid[i] = ptx::addc_cc(mid[i], m[i] ^ sub);
        mid[N] = ptx::addc(mid[N], sub);
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            t[i] = z0[i];
            t[N + i] = z2[i];
        }
        t[H] = ptx::add_cc(t[H], mid[0]);
CUZK_UNROLL
        for (int i = 1; i <= N; ++i) t[H + i] = ptx::addc_cc(t[H + i], mid[i]);
CUZK_UNROLL
        for (int i = H + N + 1; i < 2 * N - 1; ++i) t[i] = ptx::addc_cc(t[i], 0);
        t[2 * N - 1] = ptx::addc(t[2 * N - 1], 0);
    }

    // Montgomery reduction of a 2N-word product T < p^2 in paired rows: with T = H 2^(32N) + L, the
    // reduction's multiples of p depend on L alone, so N rows over L give u = (L + M p) / 2^(32N) <= p, and
    // the result is H + u < 2p (H < p / 2 for both fields, as T < p^2), made canonical by one subtraction:
    // the same value as every other schedule.
    static CUZK_HD_INLINE dev_field redc_paired(const uint32_t (&t)[2 * N]) {
        static_assert(N % 2 == 0 && N >= 4);
        uint32_t A[N + 1], B[N + 1], c = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            A[i] = t[i];
            B[i] = 0;
        }
        A[N] = B[N] = 0;
CUZK_UNROLL
        for (int i = 0; i < N; ++i) {
            if (i % 2 == 0) reduce_row(A, B, c);
            else reduce_row(B, A, c);
        }
        dev_field r = rows_sum(A, B, c);
        r.v[0] = ptx::add_cc(r.v[0], t[N]);
CUZK_UNROLL
        for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(r.v[i], t[N + i]);
        r.v[N - 1] = ptx::addc(r.v[N - 1], t[2 * N - 1]);
        reduce_once(r.v);
        return r;
    }

    template <bool Square = false>
    static CUZK_HD_INLINE dev_field mul_hybrid(const dev_field& a, const dev_field& b) {
        uint32_t t[2 * N];
        product_fp64<Square>(a, b, t);
        return redc_paired(t);
    }
    static CUZK_HD_INLINE dev_field mul_karatsuba(const dev_field& a, const dev_field& b) {
        uint32_t t[2 * N];
        product_karatsuba(a, b, t);
        return redc_paired(t);
    }

    static CUZK_HD_INLINE dev_field mul_scheduled(const dev_field& a, const dev_field& b) {
        if constexpr (Kind == mont_mul::paired) return mul_paired(a, b);
        else if constexpr (Kind == mont_mul::hybrid) return mul_hybrid(a, b);
        else if constexpr (Kind == mont_mul::karatsuba) return mul_karatsuba(a, b);
        else if constexpr (Kind == mont_mul::cios) return mul_cios(a, b);
        else if constexpr (Kind == mont_mul::even_odd) return mul_even_odd(a, b);
        else return mul_inline(a, b);
    }

    CUZK_HD_INLINE dev_field sqr_inline() const {
        uint32_t t[2 * N];
CUZK_UNROLL
        for (int i = 0; i < 2 * N; ++i) t[i] = 0;
        // Cross products a_i a_j (i < j) at word i+j; same carry bound as the multiplication.
CUZK_UNROLL
        for (int i = 0; i < N - 1; ++i) {
            t[2 * i + 1] = ptx::mad_lo_cc(v[i], v[i + 1], t[2 * i + 1]);
CUZK_UNROLL
            for (int j = i + 2; j < N; ++j) t[i + j] = ptx::madc_lo_cc(v[i], v[j], t[i + j]);
            t[i + N] = ptx::addc(t[i + N], 0);
            if (i + 1 == N - 1) {
                t[2 * i + 2] = ptx::mad_hi_cc(v[i], v[i + 1], t[2 * i + 2]);
                t[i + N + 1] = ptx::addc(t[i + N + 1], 0);
            } else {
                t[2 * i + 2] = ptx::mad_hi_cc(v[i], v[i + 1], t[2 * i + 2]);
CUZK_UNROLL
                for (int j = i + 2; j < N - 1; ++j) t[i + j + 1] = ptx::madc_hi_cc(v[i], v[j], t[i + j + 1]);
                t[i + N] = ptx::madc_hi_cc(v[i], v[N - 1], t[i + N]);
                t[i + N + 1] = ptx::addc(t[i + N + 1], 0);
            }
        }
        // Double (the cross sum is < 2^(64N - 1)), then add the squares a_i^2 at word 2i.
CUZK_UNROLL
        for (int i = 2 * N - 1; i > 0; --i) t[i] = ptx::shl_pair(t[i - 1], t[i], 1);
        t[0] = 0;
        t[0] = ptx::mad_lo_cc(v[0], v[0], t[0]);
        t[1] = ptx::madc_hi_cc(v[0], v[0], t[1]);
CUZK_UNROLL
        for (int i = 1; i < N - 1; ++i) {
            t[2 * i] = ptx::madc_lo_cc(v[i], v[i], t[2 * i]);
            t[2 * i + 1] = ptx::madc_hi_cc(v[i], v[i], t[2 * i + 1]);
        }
        t[2 * N - 2] = ptx::madc_lo_cc(v[N - 1], v[N - 1], t[2 * N - 2]);
        t[2 * N - 1] = ptx::madc_hi(v[N - 1], v[N - 1], t[2 * N - 1]);
        return redc(t);
    }

    // Fp multiplications (~600 instructions) are called, not inlined: a curve addition holds 14 of
    // them (42 for G2), and inlining every one made a single translation unit take ptxas over ten
    // minutes per architecture. The call costs a few dozen instructions of argument moves. Fr (NTT
    // butterflies, one multiplication each) stays inline.
    static CUZK_HD_NOINLINE dev_field mul_outline(const dev_field a, const dev_field b) {
        return mul_scheduled(a, b);
    }
    static CUZK_HD_NOINLINE dev_field sqr_outline(const dev_field a) { return a.sqr_scheduled(); }
    CUZK_HD_INLINE dev_field sqr_scheduled() const {
        if constexpr (Kind == mont_mul::paired) return mul_paired(*this, *this);
        else if constexpr (Kind == mont_mul::hybrid) return mul_hybrid<true>(*this, *this);
        else if constexpr (Kind == mont_mul::karatsuba) return mul_karatsuba(*this, *this);
        else return sqr_inline();
    }
    CUZK_HD_INLINE friend dev_field operator*(const dev_field& a, const dev_field& b) {
        if constexpr (!Inline) return mul_outline(a, b);
        else return mul_scheduled(a, b);
    }
    CUZK_HD_INLINE dev_field sqr() const {
        if constexpr (!Inline) return sqr_outline(*this);
        else return sqr_scheduled();
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

// The schedule the backend's kernels use: paired, the fastest measured (see the top of this file).
// CUZK_DEVICE_MUL (a mont_mul name, e.g. -DCUZK_DEVICE_MUL=sos in CMAKE_CUDA_FLAGS) overrides it for a whole
// build, so whole MSMs and NTTs can be timed under another one; CUZK_DEVICE_MUL_FP and CUZK_DEVICE_MUL_FR
// override it for one field (Fp: the MSMs; Fr: the NTTs and H).
#ifndef CUZK_DEVICE_MUL
#define CUZK_DEVICE_MUL paired
#endif
#ifndef CUZK_DEVICE_MUL_FP
#define CUZK_DEVICE_MUL_FP CUZK_DEVICE_MUL
#endif
#ifndef CUZK_DEVICE_MUL_FR
#define CUZK_DEVICE_MUL_FR CUZK_DEVICE_MUL
#endif
using dev_fp = dev_field<ff::fp_t, false, mont_mul::CUZK_DEVICE_MUL_FP>;
using dev_fr = dev_field<ff::fr_t, true, mont_mul::CUZK_DEVICE_MUL_FR>;
// dev_fp with its multiplications inlined (same layout): for the MSM's accumulation kernel, where the bucket
// step then fits in 140 registers without the calls' argument moves (cuzk_bench_gpu_field).
using dev_fp_inlined = dev_field<ff::fp_t, true, mont_mul::CUZK_DEVICE_MUL_FP>;

// Fp2 = Fp[u] / (u^2 + 1), the same layout as ff::fp2_t (c0 then c1).
struct alignas(16) dev_fp2 {
    dev_fp c0, c1;

    static CUZK_HD_INLINE dev_fp2 zero() { return {dev_fp::zero(), dev_fp::zero()}; }
    static CUZK_HD_INLINE dev_fp2 one() { return {dev_fp::one(), dev_fp::zero()}; }
    CUZK_HD_INLINE bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
    CUZK_HD_INLINE friend bool operator==(const dev_fp2& a, const dev_fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }
    CUZK_HD_INLINE friend dev_fp2 operator+(const dev_fp2& a, const dev_fp2& b) {
        return {a.c0 + b.c0, a.c1 + b.c1};
    }
    CUZK_HD_INLINE friend dev_fp2 operator-(const dev_fp2& a, const dev_fp2& b) {
        return {a.c0 - b.c0, a.c1 - b.c1};
    }
    CUZK_HD_INLINE dev_fp2 operator-() const { return {-c0, -c1}; }
    CUZK_HD_INLINE dev_fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
    CUZK_HD_INLINE dev_fp2& operator*=(const dev_fp2& b) { return *this = *this * b; }
    // Karatsuba: 3M.
    CUZK_HD_INLINE friend dev_fp2 operator*(const dev_fp2& a, const dev_fp2& b) {
        dev_fp t0 = a.c0 * b.c0;
        dev_fp t1 = a.c1 * b.c1;
        dev_fp t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
        return {t0 - t1, t2 - t0 - t1};
    }
    // (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2M.
    CUZK_HD_INLINE dev_fp2 sqr() const {
        dev_fp t = c0 * c1;
        return {(c0 + c1) * (c0 - c1), t.dbl()};
    }
    CUZK_HD dev_fp2 inverse() const {
        dev_fp t = (c0.sqr() + c1.sqr()).inverse();
        return {c0 * t, -(c1 * t)};
    }
    CUZK_HD dev_fp2 inverse_binary() const {  // variable time, as dev_field::inverse_binary
        dev_fp t = (c0.sqr() + c1.sqr()).inverse_binary();
        return {c0 * t, -(c1 * t)};
    }
    CUZK_HD dev_fp2 inverse_fast() const {  // variable time, as dev_field::inverse_fast
        dev_fp t = (c0.sqr() + c1.sqr()).inverse_fast();
        return {c0 * t, -(c1 * t)};
    }
};

}  // namespace cuzk::cuda
