// Montgomery multiplication (and modular addition/subtraction) for 6 x 64-bit (Fp, 381-bit) and
// 4 x 64-bit (Fr, 255-bit) limbs in x86-64 inline assembly. The multiplication uses MULX (flag-free
// 64x64->128 product) and two independent carry chains, ADCX on CF and ADOX on OF, so the low and
// high halves of a row of products are added in one pass. Host-only: device code and CPUs without
// ADX/BMI2 keep the portable code of mont_field.hpp, which the tests compare these routines with.
//
// Multiplication (CIOS, word by word): for each word b[i] of the multiplier
//     t += a * b[i]                  (row of N MULX, low halves on CF, high halves on OF)
//     m  = t[0] * (-p^-1 mod 2^64)   (IMUL)
//     t  = (t + m * p) / 2^64        (row of N MULX; t[0] becomes 0 and is dropped)
// then one conditional subtraction of p. The accumulator lives in N+1 registers whose names rotate
// by one each round, so dropping t[0] costs no moves.
// Invariant: with a, b < p and p < 2^(64N-1) (both moduli leave the top bit free), t < 2p after
// every round, so N+1 words always hold it and the final carry words of each row never overflow.
// Cost: 2N^2 MULX + N IMUL (78 multiplier operations for Fp, 36 for Fr); the single 64-bit
// multiplier port of current cores bounds the throughput, the t[0] -> IMUL -> MULX -> add chain
// (~10 cycles a round) the latency.
//
// Operand conventions: r = op(a, b) with r, a, b pointers to N words; r may alias a or b (a *= a)
// because the results stay in registers until the compiler's stores, after every input was read.
// The modulus and -p^-1 come from the field type F (F::MODULUS, F::INV) and are read from memory
// through rip-relative "m" operands. The text is AT&T syntax: do not build with -masm=intel.
#pragma once

#if defined(__x86_64__) && defined(__ADX__) && defined(__BMI2__) && !defined(__CUDA_ARCH__)
#define CUZK_FF_HAVE_X86_MONT_MUL 1

#include <cstddef>
#include <cstdint>
#include <utility>

namespace cuzk::ff::x86 {

// The modulus as a plain array so each word can be an "m" operand with a constant address
// (rip-relative), which costs no register even without optimisation. Hidden visibility keeps the
// address rip-relative under -fPIC too, instead of a GOT load into a register per operand.
template <class F, class Seq = std::make_index_sequence<F::N>>
struct mont_constants;
template <class F, size_t... I>
struct __attribute__((visibility("hidden"))) mont_constants<F, std::index_sequence<I...>> {
    static constexpr uint64_t p[F::N] = {F::MODULUS[I]...};
    static constexpr uint64_t inv = F::INV;
};

// acc_lo += low(a[j] * rdx) on the CF chain, acc_hi += high(...) on the OF chain.
#define CUZK_X86_MAC_A(j, acc_lo, acc_hi)              \
    "mulxq 8*" #j "(%[a]), %[lo], %[hi]\n\t"            \
    "adcxq %[lo], %[" #acc_lo "]\n\t"                   \
    "adoxq %[hi], %[" #acc_hi "]\n\t"
// acc_lo += low(p[j] * rdx), acc_hi += high(...).
#define CUZK_X86_MAC_P(j, acc_lo, acc_hi)              \
    "mulxq %[p" #j "], %[lo], %[hi]\n\t"                \
    "adcxq %[lo], %[" #acc_lo "]\n\t"                   \
    "adoxq %[hi], %[" #acc_hi "]\n\t"

// Clears CF and OF (XOR of a register with itself; |lo| is rewritten by the next MULX anyway).
#define CUZK_X86_CLEAR_FLAGS "xorl %k[lo], %k[lo]\n\t"

// Folds the pending CF and OF into |top|. MOV leaves the flags alone; |lo| is free here.
#define CUZK_X86_FOLD_CARRIES(top)                      \
    "movl $0, %k[lo]\n\t"                               \
    "adoxq %[lo], %[" #top "]\n\t"                      \
    "adcxq %[lo], %[" #top "]\n\t"
#define CUZK_X86_FOLD_CF(top)                           \
    "movl $0, %k[lo]\n\t"                               \
    "adcxq %[lo], %[" #top "]\n\t"

// rdx = m = t0 * (-p^-1) mod 2^64; IMUL clobbers the flags, which the caller clears next.
#define CUZK_X86_MONT_FACTOR(t0)                        \
    "movq %[" #t0 "], %%rdx\n\t"                        \
    "imulq %[inv], %%rdx\n\t"

// Copies r into c, subtracts p from c; the borrow (CF) says whether r was already below p.
#define CUZK_X86_COPY(r, c) "movq %[" #r "], %[" #c "]\n\t"
#define CUZK_X86_SUB_P(j, c) "subq %[p" #j "], %[" #c "]\n\t"
#define CUZK_X86_SBB_P(j, c) "sbbq %[p" #j "], %[" #c "]\n\t"
#define CUZK_X86_KEEP_IF_NO_BORROW(c, r) "cmovncq %[" #c "], %[" #r "]\n\t"

// ---- 6 limbs ------------------------------------------------------------------------------

// t0..t6 = a * b[0]: a single row, so only the CF chain is used.
#define CUZK_X86_MUL_FIRST_6(t0, t1, t2, t3, t4, t5, t6) \
    "movq 0(%[b]), %%rdx\n\t"                           \
    CUZK_X86_CLEAR_FLAGS                                \
    "mulxq 0(%[a]), %[" #t0 "], %[" #t1 "]\n\t"         \
    "mulxq 8(%[a]), %[lo], %[" #t2 "]\n\t"              \
    "adcxq %[lo], %[" #t1 "]\n\t"                       \
    "mulxq 16(%[a]), %[lo], %[" #t3 "]\n\t"             \
    "adcxq %[lo], %[" #t2 "]\n\t"                       \
    "mulxq 24(%[a]), %[lo], %[" #t4 "]\n\t"             \
    "adcxq %[lo], %[" #t3 "]\n\t"                       \
    "mulxq 32(%[a]), %[lo], %[" #t5 "]\n\t"             \
    "adcxq %[lo], %[" #t4 "]\n\t"                       \
    "mulxq 40(%[a]), %[lo], %[" #t6 "]\n\t"             \
    "adcxq %[lo], %[" #t5 "]\n\t"                       \
    CUZK_X86_FOLD_CF(t6)

// t0..t6 = t0..t5 + a * b[i]; t6 is free on entry.
#define CUZK_X86_MUL_ROW_6(i, t0, t1, t2, t3, t4, t5, t6) \
    "movq 8*" #i "(%[b]), %%rdx\n\t"                    \
    CUZK_X86_CLEAR_FLAGS                                \
    CUZK_X86_MAC_A(0, t0, t1)                           \
    CUZK_X86_MAC_A(1, t1, t2)                           \
    CUZK_X86_MAC_A(2, t2, t3)                           \
    CUZK_X86_MAC_A(3, t3, t4)                           \
    CUZK_X86_MAC_A(4, t4, t5)                           \
    "mulxq 40(%[a]), %[lo], %[" #t6 "]\n\t"             \
    "adcxq %[lo], %[" #t5 "]\n\t"                       \
    CUZK_X86_FOLD_CARRIES(t6)

// t1..t6 = (t0..t6 + m * p) / 2^64; t0 is 0 afterwards and becomes the next free register.
#define CUZK_X86_REDUCE_6(t0, t1, t2, t3, t4, t5, t6)  \
    CUZK_X86_MONT_FACTOR(t0)                            \
    CUZK_X86_CLEAR_FLAGS                                \
    CUZK_X86_MAC_P(0, t0, t1)                           \
    CUZK_X86_MAC_P(1, t1, t2)                           \
    CUZK_X86_MAC_P(2, t2, t3)                           \
    CUZK_X86_MAC_P(3, t3, t4)                           \
    CUZK_X86_MAC_P(4, t4, t5)                           \
    CUZK_X86_MAC_P(5, t5, t6)                           \
    CUZK_X86_FOLD_CF(t6)

// r = a * b * 2^-384 mod p, fully reduced, for a, b < p. r may alias a or b: the assembly leaves
// the product in registers and the stores are the compiler's, after every input word was read.
template <class F>
inline __attribute__((always_inline)) void mont_mul_6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
    using K = mont_constants<F>;
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, dx;
    __asm__(
        CUZK_X86_MUL_FIRST_6(t0, t1, t2, t3, t4, t5, t6)
        CUZK_X86_REDUCE_6(t0, t1, t2, t3, t4, t5, t6)
        CUZK_X86_MUL_ROW_6(1, t1, t2, t3, t4, t5, t6, t0)
        CUZK_X86_REDUCE_6(t1, t2, t3, t4, t5, t6, t0)
        CUZK_X86_MUL_ROW_6(2, t2, t3, t4, t5, t6, t0, t1)
        CUZK_X86_REDUCE_6(t2, t3, t4, t5, t6, t0, t1)
        CUZK_X86_MUL_ROW_6(3, t3, t4, t5, t6, t0, t1, t2)
        CUZK_X86_REDUCE_6(t3, t4, t5, t6, t0, t1, t2)
        CUZK_X86_MUL_ROW_6(4, t4, t5, t6, t0, t1, t2, t3)
        CUZK_X86_REDUCE_6(t4, t5, t6, t0, t1, t2, t3)
        CUZK_X86_MUL_ROW_6(5, t5, t6, t0, t1, t2, t3, t4)
        CUZK_X86_REDUCE_6(t5, t6, t0, t1, t2, t3, t4)
        // The product (< 2p) is t6, t0..t4; t5 (zeroed), lo, hi, rdx and the two pointer
        // registers, no longer needed, hold r - p.
        CUZK_X86_COPY(t6, t5) CUZK_X86_COPY(t0, lo) CUZK_X86_COPY(t1, hi)
        CUZK_X86_COPY(t2, dx) CUZK_X86_COPY(t3, a) CUZK_X86_COPY(t4, b)
        CUZK_X86_SUB_P(0, t5) CUZK_X86_SBB_P(1, lo) CUZK_X86_SBB_P(2, hi)
        CUZK_X86_SBB_P(3, dx) CUZK_X86_SBB_P(4, a) CUZK_X86_SBB_P(5, b)
        CUZK_X86_KEEP_IF_NO_BORROW(t5, t6) CUZK_X86_KEEP_IF_NO_BORROW(lo, t0)
        CUZK_X86_KEEP_IF_NO_BORROW(hi, t1) CUZK_X86_KEEP_IF_NO_BORROW(dx, t2)
        CUZK_X86_KEEP_IF_NO_BORROW(a, t3) CUZK_X86_KEEP_IF_NO_BORROW(b, t4)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), [dx] "=&d"(dx),
          [a] "+r"(a), [b] "+r"(b)
        : [p0] "m"(K::p[0]), [p1] "m"(K::p[1]), [p2] "m"(K::p[2]), [p3] "m"(K::p[3]),
          [p4] "m"(K::p[4]), [p5] "m"(K::p[5]), [inv] "m"(K::inv),
          "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)), "m"(*reinterpret_cast<const uint64_t(*)[6]>(b))
        : "cc");
    r[0] = t6;
    r[1] = t0;
    r[2] = t1;
    r[3] = t2;
    r[4] = t3;
    r[5] = t4;
}

#undef CUZK_X86_MUL_FIRST_6
#undef CUZK_X86_MUL_ROW_6
#undef CUZK_X86_REDUCE_6

// ---- 4 limbs ------------------------------------------------------------------------------

#define CUZK_X86_MUL_FIRST_4(t0, t1, t2, t3, t4)        \
    "movq 0(%[b]), %%rdx\n\t"                           \
    CUZK_X86_CLEAR_FLAGS                                \
    "mulxq 0(%[a]), %[" #t0 "], %[" #t1 "]\n\t"         \
    "mulxq 8(%[a]), %[lo], %[" #t2 "]\n\t"              \
    "adcxq %[lo], %[" #t1 "]\n\t"                       \
    "mulxq 16(%[a]), %[lo], %[" #t3 "]\n\t"             \
    "adcxq %[lo], %[" #t2 "]\n\t"                       \
    "mulxq 24(%[a]), %[lo], %[" #t4 "]\n\t"             \
    "adcxq %[lo], %[" #t3 "]\n\t"                       \
    CUZK_X86_FOLD_CF(t4)

#define CUZK_X86_MUL_ROW_4(i, t0, t1, t2, t3, t4)      \
    "movq 8*" #i "(%[b]), %%rdx\n\t"                    \
    CUZK_X86_CLEAR_FLAGS                                \
    CUZK_X86_MAC_A(0, t0, t1)                           \
    CUZK_X86_MAC_A(1, t1, t2)                           \
    CUZK_X86_MAC_A(2, t2, t3)                           \
    "mulxq 24(%[a]), %[lo], %[" #t4 "]\n\t"             \
    "adcxq %[lo], %[" #t3 "]\n\t"                       \
    CUZK_X86_FOLD_CARRIES(t4)

#define CUZK_X86_REDUCE_4(t0, t1, t2, t3, t4)          \
    CUZK_X86_MONT_FACTOR(t0)                            \
    CUZK_X86_CLEAR_FLAGS                                \
    CUZK_X86_MAC_P(0, t0, t1)                           \
    CUZK_X86_MAC_P(1, t1, t2)                           \
    CUZK_X86_MAC_P(2, t2, t3)                           \
    CUZK_X86_MAC_P(3, t3, t4)                           \
    CUZK_X86_FOLD_CF(t4)

// r = a * b * 2^-256 mod p, fully reduced, for a, b < p; r may alias a or b.
template <class F>
inline __attribute__((always_inline)) void mont_mul_4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
    using K = mont_constants<F>;
    uint64_t t0, t1, t2, t3, t4, lo, hi, dx;
    __asm__(
        CUZK_X86_MUL_FIRST_4(t0, t1, t2, t3, t4)
        CUZK_X86_REDUCE_4(t0, t1, t2, t3, t4)
        CUZK_X86_MUL_ROW_4(1, t1, t2, t3, t4, t0)
        CUZK_X86_REDUCE_4(t1, t2, t3, t4, t0)
        CUZK_X86_MUL_ROW_4(2, t2, t3, t4, t0, t1)
        CUZK_X86_REDUCE_4(t2, t3, t4, t0, t1)
        CUZK_X86_MUL_ROW_4(3, t3, t4, t0, t1, t2)
        CUZK_X86_REDUCE_4(t3, t4, t0, t1, t2)
        // The product (< 2p) is t4, t0..t2; t3 (zeroed), lo, hi and rdx hold r - p.
        CUZK_X86_COPY(t4, t3) CUZK_X86_COPY(t0, lo) CUZK_X86_COPY(t1, hi) CUZK_X86_COPY(t2, dx)
        CUZK_X86_SUB_P(0, t3) CUZK_X86_SBB_P(1, lo) CUZK_X86_SBB_P(2, hi) CUZK_X86_SBB_P(3, dx)
        CUZK_X86_KEEP_IF_NO_BORROW(t3, t4) CUZK_X86_KEEP_IF_NO_BORROW(lo, t0)
        CUZK_X86_KEEP_IF_NO_BORROW(hi, t1) CUZK_X86_KEEP_IF_NO_BORROW(dx, t2)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [lo] "=&r"(lo), [hi] "=&r"(hi), [dx] "=&d"(dx)
        : [a] "r"(a), [b] "r"(b), [p0] "m"(K::p[0]), [p1] "m"(K::p[1]), [p2] "m"(K::p[2]),
          [p3] "m"(K::p[3]), [inv] "m"(K::inv),
          "m"(*reinterpret_cast<const uint64_t(*)[4]>(a)), "m"(*reinterpret_cast<const uint64_t(*)[4]>(b))
        : "cc");
    r[0] = t4;
    r[1] = t0;
    r[2] = t1;
    r[3] = t2;
}

#undef CUZK_X86_MUL_FIRST_4
#undef CUZK_X86_MUL_ROW_4
#undef CUZK_X86_REDUCE_4
#undef CUZK_X86_MAC_A
#undef CUZK_X86_MAC_P
#undef CUZK_X86_CLEAR_FLAGS
#undef CUZK_X86_FOLD_CARRIES
#undef CUZK_X86_FOLD_CF
#undef CUZK_X86_MONT_FACTOR
#undef CUZK_X86_KEEP_IF_NO_BORROW

// ---- modular addition and subtraction ----------------------------------------------------
// GCC 12 turns the portable carry loops into long mixes of setc/vector code with store-forwarding
// stalls (~50 cycles for a 6-limb add); these are a carry chain, a borrow chain and a correction.
// Only used when optimising: an unoptimised build may lack the registers.
#if defined(__OPTIMIZE__)
#define CUZK_FF_HAVE_X86_ADD_SUB 1

#define CUZK_X86_LOAD(j, s) "movq 8*" #j "(%[a]), %[" #s "]\n\t"
#define CUZK_X86_ADD_B(j, s) "addq 8*" #j "(%[b]), %[" #s "]\n\t"
#define CUZK_X86_ADC_B(j, s) "adcq 8*" #j "(%[b]), %[" #s "]\n\t"
#define CUZK_X86_SUB_B(j, s) "subq 8*" #j "(%[b]), %[" #s "]\n\t"
#define CUZK_X86_SBB_B(j, s) "sbbq 8*" #j "(%[b]), %[" #s "]\n\t"
#define CUZK_X86_ADC_R(x, s) "adcq %[" #x "], %[" #s "]\n\t"
#define CUZK_X86_ADD_R(x, s) "addq %[" #x "], %[" #s "]\n\t"
#define CUZK_X86_ZERO(x) "xorl %k[" #x "], %k[" #x "]\n\t"
#define CUZK_X86_P_IF_BORROW(j, x) "cmovcq %[p" #j "], %[" #x "]\n\t"
#define CUZK_X86_KEEP_IF_BORROW(s, c) "cmovcq %[" #s "], %[" #c "]\n\t"
// After a borrow chain: ZF = no borrow (the mask is 0), and CF cleared for a fresh ADCX chain.
// ADCX writes only CF, so ZF survives the chain below and selects p or 0 for every word.
#define CUZK_X86_BORROW_TO_ZF "sbbq %[m], %[m]\n\tclc\n\t"
#define CUZK_X86_ADD_P_IF_BORROWED(j, d)                \
    "movl $0, %k[m]\n\t"                                \
    "cmovnzq %[p" #j "], %[m]\n\t"                      \
    "adcxq %[m], %[" #d "]\n\t"

// r = a + b mod p for a, b < p (the sum fits N words: p leaves the top bit free). r may alias.
// Six words do not leave registers for a second copy (a build with a frame pointer has 14), so
// p is subtracted in place and added back when that borrowed: 8 registers plus the pointers.
template <class F>
inline __attribute__((always_inline)) void mod_add_6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
    using K = mont_constants<F>;
    uint64_t s0, s1, s2, s3, s4, s5, m;
    __asm__(
        CUZK_X86_LOAD(0, s0) CUZK_X86_LOAD(1, s1) CUZK_X86_LOAD(2, s2)
        CUZK_X86_LOAD(3, s3) CUZK_X86_LOAD(4, s4) CUZK_X86_LOAD(5, s5)
        CUZK_X86_ADD_B(0, s0) CUZK_X86_ADC_B(1, s1) CUZK_X86_ADC_B(2, s2)
        CUZK_X86_ADC_B(3, s3) CUZK_X86_ADC_B(4, s4) CUZK_X86_ADC_B(5, s5)
        CUZK_X86_SUB_P(0, s0) CUZK_X86_SBB_P(1, s1) CUZK_X86_SBB_P(2, s2)
        CUZK_X86_SBB_P(3, s3) CUZK_X86_SBB_P(4, s4) CUZK_X86_SBB_P(5, s5)
        CUZK_X86_BORROW_TO_ZF
        CUZK_X86_ADD_P_IF_BORROWED(0, s0) CUZK_X86_ADD_P_IF_BORROWED(1, s1)
        CUZK_X86_ADD_P_IF_BORROWED(2, s2) CUZK_X86_ADD_P_IF_BORROWED(3, s3)
        CUZK_X86_ADD_P_IF_BORROWED(4, s4) CUZK_X86_ADD_P_IF_BORROWED(5, s5)
        : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5),
          [m] "=&r"(m)
        : [a] "r"(a), [b] "r"(b), [p0] "m"(K::p[0]), [p1] "m"(K::p[1]), [p2] "m"(K::p[2]),
          [p3] "m"(K::p[3]), [p4] "m"(K::p[4]), [p5] "m"(K::p[5]),
          "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)), "m"(*reinterpret_cast<const uint64_t(*)[6]>(b))
        : "cc");
    r[0] = s0;
    r[1] = s1;
    r[2] = s2;
    r[3] = s3;
    r[4] = s4;
    r[5] = s5;
}

// r = a - b mod p for a, b < p: the difference, plus p when it borrowed. r may alias.
template <class F>
inline __attribute__((always_inline)) void mod_sub_6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
    using K = mont_constants<F>;
    uint64_t d0, d1, d2, d3, d4, d5, m;
    __asm__(
        CUZK_X86_LOAD(0, d0) CUZK_X86_LOAD(1, d1) CUZK_X86_LOAD(2, d2)
        CUZK_X86_LOAD(3, d3) CUZK_X86_LOAD(4, d4) CUZK_X86_LOAD(5, d5)
        CUZK_X86_SUB_B(0, d0) CUZK_X86_SBB_B(1, d1) CUZK_X86_SBB_B(2, d2)
        CUZK_X86_SBB_B(3, d3) CUZK_X86_SBB_B(4, d4) CUZK_X86_SBB_B(5, d5)
        CUZK_X86_BORROW_TO_ZF
        CUZK_X86_ADD_P_IF_BORROWED(0, d0) CUZK_X86_ADD_P_IF_BORROWED(1, d1)
        CUZK_X86_ADD_P_IF_BORROWED(2, d2) CUZK_X86_ADD_P_IF_BORROWED(3, d3)
        CUZK_X86_ADD_P_IF_BORROWED(4, d4) CUZK_X86_ADD_P_IF_BORROWED(5, d5)
        : [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3), [d4] "=&r"(d4), [d5] "=&r"(d5),
          [m] "=&r"(m)
        : [a] "r"(a), [b] "r"(b), [p0] "m"(K::p[0]), [p1] "m"(K::p[1]), [p2] "m"(K::p[2]),
          [p3] "m"(K::p[3]), [p4] "m"(K::p[4]), [p5] "m"(K::p[5]),
          "m"(*reinterpret_cast<const uint64_t(*)[6]>(a)), "m"(*reinterpret_cast<const uint64_t(*)[6]>(b))
        : "cc");
    r[0] = d0;
    r[1] = d1;
    r[2] = d2;
    r[3] = d3;
    r[4] = d4;
    r[5] = d5;
}

// Four words: r - p goes into a copy and a CMOV keeps r when that borrowed (8 registers).
template <class F>
inline __attribute__((always_inline)) void mod_add_4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
    using K = mont_constants<F>;
    uint64_t s0, s1, s2, s3, c0, c1, c2, c3;
    __asm__(
        CUZK_X86_LOAD(0, s0) CUZK_X86_LOAD(1, s1) CUZK_X86_LOAD(2, s2) CUZK_X86_LOAD(3, s3)
        CUZK_X86_ADD_B(0, s0) CUZK_X86_ADC_B(1, s1) CUZK_X86_ADC_B(2, s2) CUZK_X86_ADC_B(3, s3)
        CUZK_X86_COPY(s0, c0) CUZK_X86_COPY(s1, c1) CUZK_X86_COPY(s2, c2) CUZK_X86_COPY(s3, c3)
        CUZK_X86_SUB_P(0, c0) CUZK_X86_SBB_P(1, c1) CUZK_X86_SBB_P(2, c2) CUZK_X86_SBB_P(3, c3)
        CUZK_X86_KEEP_IF_BORROW(s0, c0) CUZK_X86_KEEP_IF_BORROW(s1, c1)
        CUZK_X86_KEEP_IF_BORROW(s2, c2) CUZK_X86_KEEP_IF_BORROW(s3, c3)
        : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
          [c0] "=&r"(c0), [c1] "=&r"(c1), [c2] "=&r"(c2), [c3] "=&r"(c3)
        : [a] "r"(a), [b] "r"(b), [p0] "m"(K::p[0]), [p1] "m"(K::p[1]), [p2] "m"(K::p[2]), [p3] "m"(K::p[3]),
          "m"(*reinterpret_cast<const uint64_t(*)[4]>(a)), "m"(*reinterpret_cast<const uint64_t(*)[4]>(b))
        : "cc");
    r[0] = c0;
    r[1] = c1;
    r[2] = c2;
    r[3] = c3;
}

template <class F>
inline __attribute__((always_inline)) void mod_sub_4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
    using K = mont_constants<F>;
    uint64_t d0, d1, d2, d3, x0, x1, x2, x3;
    __asm__(
        CUZK_X86_ZERO(x0) CUZK_X86_ZERO(x1) CUZK_X86_ZERO(x2) CUZK_X86_ZERO(x3)
        CUZK_X86_LOAD(0, d0) CUZK_X86_LOAD(1, d1) CUZK_X86_LOAD(2, d2) CUZK_X86_LOAD(3, d3)
        CUZK_X86_SUB_B(0, d0) CUZK_X86_SBB_B(1, d1) CUZK_X86_SBB_B(2, d2) CUZK_X86_SBB_B(3, d3)
        CUZK_X86_P_IF_BORROW(0, x0) CUZK_X86_P_IF_BORROW(1, x1)
        CUZK_X86_P_IF_BORROW(2, x2) CUZK_X86_P_IF_BORROW(3, x3)
        CUZK_X86_ADD_R(x0, d0) CUZK_X86_ADC_R(x1, d1) CUZK_X86_ADC_R(x2, d2) CUZK_X86_ADC_R(x3, d3)
        : [d0] "=&r"(d0), [d1] "=&r"(d1), [d2] "=&r"(d2), [d3] "=&r"(d3),
          [x0] "=&r"(x0), [x1] "=&r"(x1), [x2] "=&r"(x2), [x3] "=&r"(x3)
        : [a] "r"(a), [b] "r"(b), [p0] "m"(K::p[0]), [p1] "m"(K::p[1]), [p2] "m"(K::p[2]), [p3] "m"(K::p[3]),
          "m"(*reinterpret_cast<const uint64_t(*)[4]>(a)), "m"(*reinterpret_cast<const uint64_t(*)[4]>(b))
        : "cc");
    r[0] = d0;
    r[1] = d1;
    r[2] = d2;
    r[3] = d3;
}

#undef CUZK_X86_LOAD
#undef CUZK_X86_ADD_B
#undef CUZK_X86_ADC_B
#undef CUZK_X86_SUB_B
#undef CUZK_X86_SBB_B
#undef CUZK_X86_ADC_R
#undef CUZK_X86_ADD_R
#undef CUZK_X86_ZERO
#undef CUZK_X86_P_IF_BORROW
#undef CUZK_X86_KEEP_IF_BORROW
#undef CUZK_X86_BORROW_TO_ZF
#undef CUZK_X86_ADD_P_IF_BORROWED
#endif  // __OPTIMIZE__

#undef CUZK_X86_COPY
#undef CUZK_X86_SUB_P
#undef CUZK_X86_SBB_P

}  // namespace cuzk::ff::x86

#endif
