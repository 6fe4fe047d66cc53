// Montgomery multiplication schedules other than the production one (gpud/cuda/field.cuh's paired), as
// schedule policies of dev_field: dev_field<ff::fp_t, Inline, experiments::karatsuba> is Fp over the same
// words multiplying by karatsuba. field_bench.cu times them against paired on a GPU; field_schedules_test.cpp
// checks them against the CPU field on the host. Built only with -DCUZK_BUILD_EXPERIMENTS=ON.
//
//  - sos (separated operand scanning): the whole 2N-word product, then the word-by-word reduction
//    (dev_field::redc). The baseline the others are measured against: on an H200 paired multiplies 1.54x
//    (Fp) and 1.36x (Fr) as fast, since sos's separate low and high chains cost an IMAD plus a
//    carry-propagating IADD3.X per word. Its squaring computes each cross product once.
//  - hybrid: the 2N-word product on the double-precision units (48-bit limbs), the reduction on the
//    integer multiply-add units in paired rows, so that a multiplication loads two pipes. On an H200 the
//    FP64 pipe shares issue with IMAD (their busy fractions add up to ~94 %): 8 % slower than paired.
//  - karatsuba: the product by one level of subtractive Karatsuba (three N/2-word products in even/odd
//    accumulators), the reduction in paired rows: 13 % fewer IMAD.WIDE. On an H200 it multiplies 3 %
//    faster alone but costs registers where several multiplications interleave (G1 MSM accumulation 4-9 %
//    slower). Hybrid and karatsuba are kept for GPUs whose pipes balance differently.
// Two earlier schedules were dropped once paired superseded them: cios (product and reduction interleaved
// row by row; paired is cios with its chains paired) and even_odd (the product in two chains of 64-bit
// multiply-adds, then redc; its product survives as karatsuba's product_even_odd). Their H200 figures are in
// docs/benchmarks-history.md.
#pragma once

#include <cstdint>
#include <cstring>

#include "gpud/cuda/field.cuh"

namespace cuzk::cuda::experiments {

// The high word of (hi:lo) << n, 0 < n < 32.
CUZK_HD_INLINE uint32_t shl_pair(uint32_t lo_word, uint32_t hi_word, unsigned n) {
#if defined(__CUDA_ARCH__)
    return __funnelshift_l(lo_word, hi_word, n);
#else
    return (hi_word << n) | (lo_word >> (32 - n));
#endif
}

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

// The schedules' parts, over the words and reduction helpers of F (a dev_field).
template <class F>
struct schedule_parts {
    static constexpr int N = F::N;
    using W = typename F::W;

    // Row i adds a * b[i] at word i: low halves then high halves. The partial product after row i
    // is < 2^(32(N+i+1)), so neither chain carries out of word i+N.
    static CUZK_HD_INLINE F mul_sos(const F& a, const F& b) {
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
        return F::redc(t);
    }

    static CUZK_HD_INLINE F sqr_sos(const F& a) {
        uint32_t t[2 * N];
CUZK_UNROLL
        for (int i = 0; i < 2 * N; ++i) t[i] = 0;
        // Cross products a_i a_j (i < j) at word i+j; same carry bound as the multiplication.
CUZK_UNROLL
        for (int i = 0; i < N - 1; ++i) {
            t[2 * i + 1] = ptx::mad_lo_cc(a.v[i], a.v[i + 1], t[2 * i + 1]);
CUZK_UNROLL
            for (int j = i + 2; j < N; ++j) t[i + j] = ptx::madc_lo_cc(a.v[i], a.v[j], t[i + j]);
            t[i + N] = ptx::addc(t[i + N], 0);
            if (i + 1 == N - 1) {
                t[2 * i + 2] = ptx::mad_hi_cc(a.v[i], a.v[i + 1], t[2 * i + 2]);
                t[i + N + 1] = ptx::addc(t[i + N + 1], 0);
            } else {
                t[2 * i + 2] = ptx::mad_hi_cc(a.v[i], a.v[i + 1], t[2 * i + 2]);
CUZK_UNROLL
                for (int j = i + 2; j < N - 1; ++j) t[i + j + 1] = ptx::madc_hi_cc(a.v[i], a.v[j], t[i + j + 1]);
                t[i + N] = ptx::madc_hi_cc(a.v[i], a.v[N - 1], t[i + N]);
                t[i + N + 1] = ptx::addc(t[i + N + 1], 0);
            }
        }
        // Double (the cross sum is < 2^(64N - 1)), then add the squares a_i^2 at word 2i.
CUZK_UNROLL
        for (int i = 2 * N - 1; i > 0; --i) t[i] = shl_pair(t[i - 1], t[i], 1);
        t[0] = 0;
        t[0] = ptx::mad_lo_cc(a.v[0], a.v[0], t[0]);
        t[1] = ptx::madc_hi_cc(a.v[0], a.v[0], t[1]);
CUZK_UNROLL
        for (int i = 1; i < N - 1; ++i) {
            t[2 * i] = ptx::madc_lo_cc(a.v[i], a.v[i], t[2 * i]);
            t[2 * i + 1] = ptx::madc_hi_cc(a.v[i], a.v[i], t[2 * i + 1]);
        }
        t[2 * N - 2] = ptx::madc_lo_cc(a.v[N - 1], a.v[N - 1], t[2 * N - 2]);
        t[2 * N - 1] = ptx::madc_hi(a.v[N - 1], a.v[N - 1], t[2 * N - 1]);
        return F::redc(t);
    }

    // Fp multiplications (~600 instructions) are called, not inlined: a curve addition holds 14 of
    // them (42 for G2), and inlining every one made a single translation unit take ptxas over ten
    // minutes per architecture. The call costs a few dozen instructions of argument moves. Fr (NTT

    // --- hybrid: the product in double precision, the reduction in integer rows -------------------------
    //
    // Why: on an H200 a paired multiplication is bound by its 64-bit integer multiply-adds (IMAD.WIDE,
    // half the integer rate), while the double-precision pipe (64 fused multiply-adds per SM and clock)
    // idles. Here the a*b product goes to that pipe and only the Montgomery reduction (N rows of m p)
    // stays on the integer one, so that the scheduler can overlap one warp's product with another's
    // reduction. Measured on an H200 it does not: the FP64 pipe shares issue with IMAD there (ncu: their busy
    // fractions add up to ~94 %), and hybrid is 8 % slower than paired (field_bench.cu; docs/benchmarks-history.md).
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
    static CUZK_HD_INLINE void to_limbs48(const F& a, double (&x)[HYBRID_LIMBS]) {
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
    static CUZK_HD_INLINE void product_fp64(const F& a, const F& b, uint32_t (&t)[2 * N]) {
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
        F::template add_mp_and_shift<true>(E, O, c, m);
    }

    // --- karatsuba: one level of subtractive Karatsuba for the product, paired rows for the reduction ----
    //
    // Why: paired is bound by its 64-bit multiply-adds (2 N^2 of them: N^2 for the product, N^2 for the
    // reduction). Three half-size products instead of one full one take the product's share from N^2 to
    // 3 N^2 / 4 (Fp: 288 -> 252 multiply-adds), for a few dozen carry additions on the other integer pipe.

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
    static CUZK_HD_INLINE void product_karatsuba(const F& a, const F& b, uint32_t (&t)[2 * N]) {
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
    static CUZK_HD_INLINE F redc_paired(const uint32_t (&t)[2 * N]) {
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
        F r = F::rows_sum(A, B, c);
        r.v[0] = ptx::add_cc(r.v[0], t[N]);
CUZK_UNROLL
        for (int i = 1; i < N - 1; ++i) r.v[i] = ptx::addc_cc(r.v[i], t[N + i]);
        r.v[N - 1] = ptx::addc(r.v[N - 1], t[2 * N - 1]);
        F::reduce_once(r.v);
        return r;
    }

    template <bool Square = false>
    static CUZK_HD_INLINE F mul_hybrid(const F& a, const F& b) {
        uint32_t t[2 * N];
        product_fp64<Square>(a, b, t);
        return redc_paired(t);
    }
    static CUZK_HD_INLINE F mul_karatsuba(const F& a, const F& b) {
        uint32_t t[2 * N];
        product_karatsuba(a, b, t);
        return redc_paired(t);
    }
};

// The policies dev_field takes as its Schedule (field.cuh's paired_schedule is the production one).
struct sos {
    template <class F>
    static CUZK_HD_INLINE F mul(const F& a, const F& b) { return schedule_parts<F>::mul_sos(a, b); }
    template <class F>
    static CUZK_HD_INLINE F sqr(const F& a) { return schedule_parts<F>::sqr_sos(a); }
};
struct hybrid {
    template <class F>
    static CUZK_HD_INLINE F mul(const F& a, const F& b) { return schedule_parts<F>::mul_hybrid(a, b); }
    template <class F>
    static CUZK_HD_INLINE F sqr(const F& a) { return schedule_parts<F>::template mul_hybrid<true>(a, a); }
};
struct karatsuba {
    template <class F>
    static CUZK_HD_INLINE F mul(const F& a, const F& b) { return schedule_parts<F>::mul_karatsuba(a, b); }
    template <class F>
    static CUZK_HD_INLINE F sqr(const F& a) { return schedule_parts<F>::mul_karatsuba(a, a); }
};

}  // namespace cuzk::cuda::experiments
