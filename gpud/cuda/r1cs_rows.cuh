// The rows a = A z, b = B z, c = C z of a partition on the device, term by term, and z's values read from the
// compact witness (common/witness/compact_vector.hpp): the per-thread code of the kernels in r1cs_kernels.cuh,
// host and device code, so the host tests (tests/test_device_r1cs_on_host.cpp) run it on every machine.
//
// z = [inputs | aux] is read one of two ways (z_expanded, z_compact). Expanded: 32 bytes per term from z in
// device memory (4.2 GB at the 32 GiB PoRep shape, far beyond the L2 cache). Compact: the aux value's two block
// words (16 bytes, from 16 MB of full_mask and 16 MB of bit_value at that shape: L2-sized, 50 MB on an H200),
// its full value only where it is neither 0 nor 1 (1.3 % at 32 GiB); a zero adds nothing and a one adds the
// coefficient itself, with no multiplication. Either way a term with coefficient 1 or -1 (table entries 0 and 1) is an
// addition or a subtraction, and only a full value with another coefficient costs a multiplication.
#pragma once

#include <cstdint>

#include "gpud/cuda/field.cuh"
#include "gpud/cuda/words.cuh"

namespace cuzk::cuda::r1cs_rows {

CUZK_HD_INLINE uint64_t load_u64(const uint64_t* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(reinterpret_cast<const unsigned long long*>(p));
#else
    return *p;
#endif
}
CUZK_HD_INLINE uint32_t load_u32(const uint32_t* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}
CUZK_HD_INLINE uint16_t load_u16(const uint16_t* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}
CUZK_HD_INLINE unsigned popcount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
    return unsigned(__popcll(x));
#else
    return unsigned(__builtin_popcountll(x));
#endif
}
// The bits of |x| below bit |k| (k < 64).
CUZK_HD_INLINE uint64_t below(uint64_t x, unsigned k) { return x & ((uint64_t(1) << k) - 1); }

// Bits of a witness's error word: what a kernel found wrong in data it was handed (the host throws naming it).
enum : uint32_t {
    FULL_INDEX_BEYOND = 1,  // a full value's index (full_before + popcount) beyond the full values
};
CUZK_HD_INLINE void raise(uint32_t* error, uint32_t what) {
#if defined(__CUDA_ARCH__)
    atomicOr(error, what);
#else
    *error |= what;
#endif
}

// One matrix in device memory: row r's terms are [row_start[r], row_start[r + 1]) (fewer than 2^32 terms, so
// 32-bit offsets), term t is coefficients[coeff[t]] z[column[t]].
struct matrix_view {
    uint64_t rows = 0;
    const uint32_t* row_start = nullptr;
    const uint32_t* column = nullptr;
    const uint16_t* coeff = nullptr;
};

// acc += coefficients[k] v: an addition for k = 0 (1), a subtraction for k = 1 (-1), else a multiplication.
CUZK_HD_INLINE void add_scaled(fr_t& acc, const fr_t* coefficients, uint16_t k, const fr_t& v) {
    if (k == 0) acc += v;
    else if (k == 1) acc -= v;
    else acc += load_resident(coefficients + k) * v;
}

// z from its expansion in device memory (r1cs_witness::expand). Zeros and ones, most values, cost no
// multiplication.
struct z_expanded {
    const fr_t* z = nullptr;

    CUZK_HD_INLINE fr_t at(uint64_t i) const { return load_resident(z + i); }
    CUZK_HD_INLINE void add_term(fr_t& acc, const fr_t* coefficients, uint32_t col, uint16_t k) const {
        const fr_t v = at(col);
        if (v.is_zero()) return;
        if (v.is_one()) acc += load_resident(coefficients + k);
        else add_scaled(acc, coefficients, k, v);
    }
};

// z from the inputs (in full, z[0, n_in) of the expansion's buffer) and the compact aux vector, as uploaded.
// A full value's index is checked against |n_full|: a view another process wrote could point beyond it
// (the host checks views too, witness::check_consistent); the kernel then raises FULL_INDEX_BEYOND and reads
// nothing there.
struct z_compact {
    const fr_t* inputs = nullptr;
    uint64_t n_in = 0;
    const uint64_t* full_mask = nullptr;
    const uint64_t* bit_value = nullptr;
    const uint32_t* full_before = nullptr;
    const fr_t* full = nullptr;
    uint64_t n_full = 0;
    uint32_t* error = nullptr;

    // Aux value |i|: 0 zero, 1 one, 2 full (into |v|); a bad full index raises the error and reads as zero.
    CUZK_HD_INLINE int aux_kind(uint64_t i, fr_t& v) const {
        const uint64_t block = i / 64;
        const unsigned k = unsigned(i % 64);
        const uint64_t mask = load_u64(full_mask + block);
        if ((mask >> k) & 1) {
            const uint64_t f = uint64_t(load_u32(full_before + block)) + popcount64(below(mask, k));
            if (f >= n_full) {
                raise(error, FULL_INDEX_BEYOND);
                return 0;
            }
            v = load_resident(full + f);
            return 2;
        }
        return int((load_u64(bit_value + block) >> k) & 1);
    }
    CUZK_HD_INLINE fr_t aux_at(uint64_t i) const {
        fr_t v;
        const int kind = aux_kind(i, v);
        return kind == 2 ? v : kind == 1 ? fr_t::one() : fr_t::zero();
    }
    CUZK_HD_INLINE fr_t at(uint64_t i) const { return i < n_in ? load_resident(inputs + i) : aux_at(i - n_in); }
    CUZK_HD_INLINE void add_term(fr_t& acc, const fr_t* coefficients, uint32_t col, uint16_t k) const {
        fr_t v;
        if (col < n_in) {
            v = load_resident(inputs + col);
        } else {
            const int kind = aux_kind(col - n_in, v);
            if (kind == 0) return;
            if (kind == 1) {
                acc += load_resident(coefficients + k);
                return;
            }
        }
        add_scaled(acc, coefficients, k, v);
    }
};

// The sum of terms begin, begin + stride, ... below end of |m|'s term array.
template <class Z>
CUZK_HD_INLINE fr_t sum_terms(const matrix_view& m, const Z& z, const fr_t* coefficients, uint64_t begin,
                              uint64_t end, uint64_t stride) {
    fr_t acc = fr_t::zero();
    for (uint64_t t = begin; t < end; t += stride)
        z.add_term(acc, coefficients, load_u32(m.column + t), load_u16(m.coeff + t));
    return acc;
}

// A density bitmap in device memory with its prefix counts (r1cs_plan::density_prefix): element i, when its
// bit is set, goes to place prefix[i / 64] + popcount of the bits below it in its word.
struct density_view {
    uint64_t size = 0;  // elements (bits)
    const uint64_t* words = nullptr;
    const uint32_t* prefix = nullptr;

    // False when element |i| is not selected; else true and its place in |place|.
    CUZK_HD_INLINE bool place_of(uint64_t i, uint64_t& place) const {
        const uint64_t w = load_u64(words + i / 64);
        const unsigned k = unsigned(i % 64);
        if (!((w >> k) & 1)) return false;
        place = uint64_t(load_u32(prefix + i / 64)) + popcount64(below(w, k));
        return true;
    }
};

}  // namespace cuzk::cuda::r1cs_rows
