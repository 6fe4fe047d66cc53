// Values in device memory (field elements, points, buckets) read and written as whole 16-byte words.
//
// Why: a value used where it lies, by reference into global memory, is read a word at a time just before
// each row of the arithmetic that uses it, and again for the next row: nvcc does not move or merge loads
// across the carry chains' asm statements, so each chain waits on each load. Loaded whole into registers
// first, a value costs words_of<F> vector loads issued together (H200: the NTT at 2^27 56.1 -> 50.7 ms,
// the chunk totals' inversions 17.3 -> 16.7 ms; docs/benchmarks-history.md).
//
// The loads come in three flavours:
//   load_value     plain loads: data this kernel (or this thread) may also write;
//   load_resident  through the read-only cache (__ldg): data no kernel writes while this one runs
//                  (resident points, twiddle tables, buckets a previous kernel wrote);
//   load_streamed  cached in L2 only (__ldcg): data read once, which would only evict the L1's.
// Host builds (the host tests of the shared chunk functions) copy bytes instead.
#pragma once

#include <cstdint>
#include <cstring>

#include "gpud/cuda/field.cuh"

namespace cuzk::cuda {

#if defined(__CUDACC__)
using word = uint4;
#else
struct alignas(16) word {
    uint32_t x, y, z, w;
};
#endif

template <class F>
constexpr int words_of = int(sizeof(F) / 16);

CUZK_HD_INLINE word load_ro(const word* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}
CUZK_HD_INLINE word load_cg(const word* p) {
#if defined(__CUDA_ARCH__)
    return __ldcg(p);
#else
    return *p;
#endif
}

// A value's bytes to and from whole words, copied rather than cast: writing a local F through a word
// pointer (or reading one that way) breaks the aliasing rule, and g++ -O3 dropped such stores in the host
// tests of an earlier version of the batch-affine walks. Fixed-size copies of registers cost
// nothing on the GPU (the kernels' registers and timings were unchanged).
template <class F>
CUZK_HD_INLINE F from_words(const word (&d)[words_of<F>]) {
    static_assert(sizeof(F) == words_of<F> * sizeof(word), "a value of whole words");
    F r;
    memcpy(static_cast<void*>(&r), d, sizeof r);
    return r;
}

// words_of<F> words read by |load| from |p|, in one unrolled burst.
template <class F, class Load>
CUZK_HD_INLINE F load_with(const F* p, Load load) {
    const word* src = reinterpret_cast<const word*>(p);
    word d[words_of<F>];
    CUZK_UNROLL
    for (int w = 0; w < words_of<F>; ++w) d[w] = load(src + w);
    return from_words<F>(d);
}

template <class F>
CUZK_HD_INLINE F load_resident(const F* p) {
    return load_with(p, [](const word* q) { return load_ro(q); });
}
template <class F>
CUZK_HD_INLINE F load_streamed(const F* p) {
    return load_with(p, [](const word* q) { return load_cg(q); });
}
// Words both ways, so a store and a later load of one value have the same type. A type that is not whole
// words (the host tests' stand-in points) is copied as itself.
template <class F>
CUZK_HD_INLINE F load_value(const F* p) {
    if constexpr (sizeof(F) % sizeof(word) != 0) {
        return *p;
    } else {
#if defined(__CUDA_ARCH__)
        return load_with(p, [](const word* q) { return *q; });
#else
        word d[words_of<F>];
        memcpy(static_cast<void*>(d), static_cast<const void*>(p), sizeof d);
        return from_words<F>(d);
#endif
    }
}
template <class F>
CUZK_HD_INLINE void store_value(F* p, const F& v) {
    if constexpr (sizeof(F) % sizeof(word) != 0) {
        *p = v;
    } else {
#if defined(__CUDA_ARCH__)
        word s[words_of<F>];
        memcpy(static_cast<void*>(s), &v, sizeof v);
        word* dst = reinterpret_cast<word*>(p);
        CUZK_UNROLL
        for (int w = 0; w < words_of<F>; ++w) dst[w] = s[w];
#else
        memcpy(static_cast<void*>(p), &v, sizeof v);
#endif
    }
}

}  // namespace cuzk::cuda
