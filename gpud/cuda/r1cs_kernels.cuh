// The kernels of r1cs_witness (r1cs_witness.hpp): the compact aux vector expanded into z, the sparse products
// a = A z, b = B z, c = C z (short rows a thread each, long rows' pieces a warp each, then the pieces' sums per
// row: r1cs_plan.hpp), and the density gathers of the A and B scalars. The per-thread code is in r1cs_rows.cuh.
#pragma once

#include "gpud/cuda/r1cs_plan.hpp"
#include "gpud/cuda/r1cs_rows.cuh"

namespace cuzk::cuda::r1cs_rows {

constexpr unsigned ROW_THREADS = 256;
constexpr unsigned PIECE_WARPS = 8;  // warps per block of the pieces' kernel

// out[i] = aux value i for i < n: one thread per value (a warp's 32 values share their block words: one
// broadcast load each), 32 bytes written per thread, coalesced.
__global__ void expand_kernel(z_compact z, uint64_t n, fr_t* out) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    store_value(out + i, z.aux_at(i));
}

// out[r] for each row r of at most SHORT_ROW_TERMS terms (the longer ones are the pieces' kernel's).
template <class Z>
__global__ void __launch_bounds__(ROW_THREADS) short_rows_kernel(matrix_view m, Z z, const fr_t* coefficients,
                                                                  fr_t* out) {
    const uint64_t r = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (r >= m.rows) return;
    const uint32_t b = load_u32(m.row_start + r), e = load_u32(m.row_start + r + 1);
    if (e - b > r1cs_plan::SHORT_ROW_TERMS) return;
    store_value(out + r, sum_terms(m, z, coefficients, b, e, 1));
}

// The 8 words of |x| from lane + |offset| of the warp.
__device__ __forceinline__ fr_t shuffle_down(const fr_t& x, unsigned offset) {
    fr_t r;
#pragma unroll
    for (int i = 0; i < fr_t::N; ++i) r.v[i] = __shfl_down_sync(0xffffffffu, x.v[i], offset);
    return r;
}

// partial[p] = the sum of piece p's terms: one warp per piece, lane l taking terms begin + l, begin + l + 32, ...
// (consecutive lanes read consecutive terms), then a shuffle reduction (5 rounds of 8 shuffles and an addition).
template <class Z>
__global__ void __launch_bounds__(PIECE_WARPS * 32) pieces_kernel(matrix_view m, Z z, const fr_t* coefficients,
                                                                   const r1cs_plan::piece* pieces, uint64_t n,
                                                                   fr_t* partial) {
    const uint64_t p = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const unsigned lane = threadIdx.x % 32;
    if (p >= n) return;  // whole warps leave together: n pieces take exactly n warps
    const r1cs_plan::piece pc = pieces[p];
    fr_t acc = sum_terms(m, z, coefficients, uint64_t(pc.begin) + lane, pc.end, 32);
#pragma unroll
    for (unsigned off = 16; off > 0; off /= 2) acc += shuffle_down(acc, off);
    if (lane == 0) store_value(partial + p, acc);
}

// out[row] = the sum of the row's pieces, one thread per long row.
__global__ void long_rows_kernel(const r1cs_plan::long_row* rows, uint64_t n, const fr_t* partial, fr_t* out) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const r1cs_plan::long_row lr = rows[i];
    fr_t acc = load_value(partial + lr.first_piece);
    for (uint32_t k = 1; k < lr.pieces; ++k) acc += load_value(partial + lr.first_piece + k);
    store_value(out + lr.row, acc);
}

// out[place] = z.at(first + i) for each i < d.size whose density bit is set (place: density_view::place_of).
template <class Z>
__global__ void gather_kernel(Z z, uint64_t first, density_view d, fr_t* out) {
    const uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= d.size) return;
    uint64_t place;
    if (d.place_of(i, place)) store_value(out + place, z.at(first + i));
}

}  // namespace cuzk::cuda::r1cs_rows
