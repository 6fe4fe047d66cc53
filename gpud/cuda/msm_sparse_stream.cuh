// Streaming only the points an MSM run reads (msm_context::set_sparse_streaming): a run never reads a point whose
// scalar is 0, and the parameters' L, A and B scalars are about half zeros (51 %, 51 % and 48 % in a 32 GiB PoRep
// partition), while those MSMs, streamed from host memory, are bound by the link. A copy engine moves contiguous
// bytes only, so the points with a scalar other than 0 are listed on the device, then gathered by a kernel that
// reads the page-locked host copy in place (mapped into the device's address space), each to its own index of the
// segment buffer, where the run's classified indices read it; the other slots keep whatever they held. On an H200,
// a random 49 % of a 2^25-point segment came over in 0.63 of the whole segment's copy (42.5 GB/s of points moved
// against the copy engine's 54.4; bench/gpu/experiments/msm_sparse_stream.cu, BENCHMARKS.md): the gather pays
// where the share read is below ~0.78, so a segment with more goes by the copy engine (SPARSE_COPY_MAX_SHARE).
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "gpud/cuda/field.cuh"
#include "gpud/cuda/words.cuh"

namespace cuzk::cuda {

// The largest share of a segment's points read by its run for which they are gathered rather than copied whole.
constexpr double SPARSE_COPY_MAX_SHARE = 0.75;

constexpr unsigned NONZERO_THREADS = 256, NONZERO_ITEMS = 4;

// The indices (from 0 at |scalars|) of the |n| scalars other than 0 into |idx|, their number added to *count:
// each block takes NONZERO_THREADS x NONZERO_ITEMS consecutive scalars and places its indices by a block scan, in
// ascending order within the block (one atomic per block; the blocks' ranges land in any order), so that the
// gather reads a block's listed points front to back.
__global__ void __launch_bounds__(NONZERO_THREADS)
    nonzero_indices_kernel(const fr_t* __restrict__ scalars, size_t n, uint32_t* count, uint32_t* idx) {
    using block_scan = cub::BlockScan<uint32_t, NONZERO_THREADS>;
    __shared__ typename block_scan::TempStorage scan_temp;
    __shared__ uint32_t base;
    const size_t tile = size_t(blockIdx.x) * NONZERO_THREADS * NONZERO_ITEMS;
    // Thread t takes items t NONZERO_ITEMS .. + NONZERO_ITEMS - 1 (blocked, not striped): the scan's order is then
    // the scalars' order.
    uint32_t flag[NONZERO_ITEMS], at[NONZERO_ITEMS];
    CUZK_UNROLL
    for (unsigned j = 0; j < NONZERO_ITEMS; ++j) {
        const size_t i = tile + threadIdx.x * NONZERO_ITEMS + j;
        flag[j] = i < n && !load_resident(scalars + i).is_zero() ? 1u : 0u;
    }
    uint32_t total;
    block_scan(scan_temp).ExclusiveSum(flag, at, total);
    if (threadIdx.x == 0) base = total ? atomicAdd(count, total) : 0;
    __syncthreads();
    CUZK_UNROLL
    for (unsigned j = 0; j < NONZERO_ITEMS; ++j)
        if (flag[j]) idx[base + at[j]] = uint32_t(tile + threadIdx.x * NONZERO_ITEMS + j);
}

// The points at the *count indices |idx| from |host| (page-locked host memory, mapped) to the same indices of
// |dev|, WORDS 16-byte words each: consecutive threads take consecutive words of consecutive listed points, so a
// point is read as one run over the link, and neighbouring listed points as one longer run.
template <unsigned WORDS>
__global__ void gather_points_kernel(const uint4* __restrict__ host, const uint32_t* __restrict__ idx,
                                     const uint32_t* __restrict__ count, uint4* __restrict__ dev) {
    const size_t total = size_t(*count) * WORDS, stride = size_t(gridDim.x) * blockDim.x;
    for (size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
        const size_t at = size_t(idx[t / WORDS]) * WORDS + t % WORDS;
        dev[at] = host[at];
    }
}

// Blocks of the gather: enough loads in flight to fill the link (the experiment's 8 blocks of 256 threads per SM
// on an H200, 4 loads per thread no faster), few enough to leave SMs to the kernels of the segment before.
constexpr unsigned GATHER_THREADS = 256, GATHER_BLOCKS_PER_SM = 8;

}  // namespace cuzk::cuda
