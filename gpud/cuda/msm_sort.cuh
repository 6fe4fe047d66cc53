// Digits and sort of the GPU MSM's Pippenger step (msm_run.cuh): each other scalar's signed window digits
// (msm_digits.cuh) become (bucket key, point) pairs (msm_pairs.cuh), radix-sorted by key per set of buckets,
// so that the accumulation (msm_accumulate.cuh) finds each bucket's points as one run.
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include <cstddef>
#include <cstdint>

#include "gpud/cuda/device_buffer.cuh"
#include "gpud/cuda/field.cuh"
#include "gpud/cuda/msm_digits.cuh"
#include "gpud/cuda/msm_pairs.cuh"
#include "gpud/cuda/words.cuh"

namespace cuzk::cuda {

// Signed digits (msm_digits.cuh) in the windows of |split|. Key: (w << c) | (|d| - 1), or (w << c) | B for
// d = 0 (c the window's width, B = 2^(c-1): sorted last in its window and skipped); value: point index,
// NEG_FLAG for d < 0. Only windows [w0, w0 + group) are written (a pass of run(), whose windows have one
// width: the carries still come from window 0 up), as pass-local windows 0, 1, ...: keys[(w - w0) m + i]
// with the window field w - w0.
// With precomputed multiples (|stride| != 0: window w's multiples 2^(w c) P start at w |stride|), every
// window's digits go to one set of buckets: the key drops the window and the value names the multiple,
// point + w |stride| (+ |first|, the run's first resident point).
// |scalars|: the run's (Montgomery form), read through |idx|, the others' indices (classify_kernel).
__global__ void digits_kernel(const fr_t* __restrict__ scalars, const uint32_t* __restrict__ idx, size_t m,
                              window_split split, unsigned w0, unsigned group, uint32_t* keys,
                              uint32_t* vals, uint32_t stride, uint32_t first) {
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const uint32_t j = idx[i];
    const fr_t s = load_resident(scalars + j).from_montgomery();  // canonical digits
    const uint32_t point = j + first;
    const unsigned c = split.width(w0);
    const uint32_t B = 1u << (c - 1);
    uint32_t carry = 0;
    const unsigned end = w0 + group;  // the windows above the pass need no digits (nor carries)
    for (unsigned w = 0; w < end; ++w) {
        const signed_digit d = window_digit_at(s.v, split.bit(w), split.width(w), carry);
        const uint32_t key = d.magnitude == 0 ? B : d.magnitude - 1;
        const uint32_t val = (point + w * stride) | (d.negative ? NEG_FLAG : 0);
        if (w < w0 || w >= w0 + group) continue;
        keys[size_t(w - w0) * m + i] = stride ? key : (uint32_t(w - w0) << c) | key;
        vals[size_t(w - w0) * m + i] = val;
    }
}

// Sorts |sets| runs of |per_sort| pairs, run s at s |stride|, by the low |key_bits| bits of their keys into
// |keys_sorted| and |vals_sorted| at the same offsets, on |stream|; |temp| grows to what cub asks for.
inline void sort_pairs(device_buffer<uint8_t>& temp, const uint32_t* keys, uint32_t* keys_sorted,
                       const uint32_t* vals, uint32_t* vals_sorted, size_t per_sort, unsigned sets, size_t stride,
                       unsigned key_bits, cudaStream_t stream) {
    size_t temp_bytes = 0;
    CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, keys_sorted, vals, vals_sorted,
                                            int(per_sort), 0, int(key_bits), stream));
    temp.reserve(temp_bytes);
    for (unsigned s = 0; s < sets; ++s) {
        const size_t off = size_t(s) * stride;
        CUDA_OK(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, keys + off, keys_sorted + off, vals + off,
                                                vals_sorted + off, int(per_sort), 0, int(key_bits), stream));
    }
}

}  // namespace cuzk::cuda
