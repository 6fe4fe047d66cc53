// The sorted (bucket key, point) pairs of the GPU MSM's Pippenger step and what a chunk of them leaves
// behind once accumulated; shared by the XYZZ accumulation (msm_accumulate.cuh) and the batch-affine rounds
// (msm_batch_affine.cuh), so both write results the split-bucket passes read the same way.
//
// Key: (window << c) | (|digit| - 1), or (window << c) | 2^(c-1) for a zero digit (sorted last in its
// window, skipped). Value: the point's index, with NEG_FLAG when the digit is negative.
#pragma once

#include <cstdint>

#include "gpud/cuda/curve.cuh"

namespace cuzk::cuda {

constexpr uint32_t NEG_FLAG = 0x80000000u;  // in a sorted value: the point enters negated
constexpr uint32_t NO_BUCKET = 0xffffffffu;

struct pair_keys {
    uint32_t half;  // B = 2^(c-1): buckets per window, and the zero digit's local key
    uint32_t local_mask;
    unsigned c;
    CUZK_HD_INLINE explicit pair_keys(unsigned window_bits)
        : half(1u << (window_bits - 1)), local_mask((1u << window_bits) - 1), c(window_bits) {}
    CUZK_HD_INLINE bool zero_digit(uint32_t key) const { return (key & local_mask) == half; }
    CUZK_HD_INLINE uint32_t bucket(uint32_t key) const { return (key >> c) * half + (key & local_mask); }
};

// Where chunk k's runs of equal keys go: a run wholly inside the chunk is its bucket's sum; a run that
// began in an earlier chunk is the chunk's head (state 1: it ends here, 2: it fills the chunk and goes
// on); a run that begins here and goes on is the tail, which owns the bucket. msm_split.cuh finishes the
// split buckets from heads and tails. P: the bucket type the kernel computes with,
// of the stored type's layout.
template <class P>
struct chunk_results {
    P* buckets;
    P* head;
    uint8_t* head_state;
    P* tail;
    uint32_t* tail_bucket;

    CUZK_HD_INLINE void clear(size_t k) const {
        head_state[k] = 0;
        tail_bucket[k] = NO_BUCKET;
    }
    CUZK_HD_INLINE void write(size_t k, const pair_keys& pk, uint32_t key, bool starts_here, bool ends_here,
                                          const P& acc) const {
        if (pk.zero_digit(key)) return;
        if (!starts_here) {
            head[k] = acc;
            head_state[k] = ends_here ? 1 : 2;
        } else if (ends_here) {
            buckets[pk.bucket(key)] = acc;
        } else {
            tail[k] = acc;
            tail_bucket[k] = pk.bucket(key);
        }
    }
};

}  // namespace cuzk::cuda
