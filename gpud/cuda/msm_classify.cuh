// Classification of the GPU MSM's scalars (msm_run.cuh): zero (skipped), one (their points summed as one
// bucket, msm_ones.cuh) or other (through Pippenger: digits and sort, msm_sort.cuh), the ones' and others'
// indices compacted with one atomic per block and counter.
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "gpud/cuda/field.cuh"
#include "gpud/cuda/words.cuh"

namespace cuzk::cuda {

// Each block takes CLASSIFY_THREADS x CLASSIFY_ITEMS consecutive scalars, loaded striped (item j of thread t
// at j CLASSIFY_THREADS + t: a warp reads 1 KB in a row), and places its ones and others by a block scan
// of the per-thread counts, so each counter takes one atomic per block. With one atomic per warp and counter
// the two counters' atomics, serialised at one address each, were the kernel's cost (on an H200: 8.4 ms for
// 2^27 PoRep-like scalars, whose warps all hold both kinds, ~5 for random ones). The order within a block's
// outputs is not the scalars' order, nor was the blocks' before; no result depends on it.
constexpr unsigned CLASSIFY_THREADS = 256, CLASSIFY_ITEMS = 4;

// counters[0] = ones, counters[1] = others, with their indices in one_idx and other_idx. The others' scalars
// are not copied: digits_kernel reads them through other_idx (a copy of their canonical forms took 32 bytes
// per scalar of scratch, 4.3 GB for the H MSM, which the G2 MSM's scratch limit then lacked).
__global__ void __launch_bounds__(CLASSIFY_THREADS)
    classify_kernel(const fr_t* __restrict__ scalars, size_t n, uint32_t* counters, uint32_t* one_idx,
                    uint32_t* other_idx) {
    // Counts packed as (ones << 16) | others: a block's totals are at most 1024 each.
    using block_scan = cub::BlockScan<uint32_t, CLASSIFY_THREADS>;
    __shared__ typename block_scan::TempStorage scan_temp;
    __shared__ uint32_t base[2];
    const size_t tile = size_t(blockIdx.x) * CLASSIFY_THREADS * CLASSIFY_ITEMS;
    uint32_t packed[CLASSIFY_ITEMS], at[CLASSIFY_ITEMS];
    CUZK_UNROLL
    for (unsigned j = 0; j < CLASSIFY_ITEMS; ++j) {
        const size_t i = tile + j * CLASSIFY_THREADS + threadIdx.x;
        packed[j] = 0;
        if (i < n) {
            const fr_t s = load_resident(scalars + i);
            packed[j] = s.is_one() ? 1u << 16 : s.is_zero() ? 0 : 1;
        }
    }
    uint32_t total;
    block_scan(scan_temp).ExclusiveSum(packed, at, total);
    if (threadIdx.x == 0) {
        base[0] = total >> 16 ? atomicAdd(&counters[0], total >> 16) : 0;
        base[1] = total & 0xffff ? atomicAdd(&counters[1], total & 0xffff) : 0;
    }
    __syncthreads();
    CUZK_UNROLL
    for (unsigned j = 0; j < CLASSIFY_ITEMS; ++j) {
        const uint32_t i = uint32_t(tile + j * CLASSIFY_THREADS + threadIdx.x);
        if (packed[j] >> 16) {
            one_idx[base[0] + (at[j] >> 16)] = i;
        } else if (packed[j]) {
            other_idx[base[1] + (at[j] & 0xffff)] = i;
        }
    }
}

}  // namespace cuzk::cuda
