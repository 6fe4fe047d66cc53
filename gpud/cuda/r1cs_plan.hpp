// How the GPU splits a matrix's rows among threads (r1cs_rows.cuh), planned on the host once per matrix when
// it is uploaded (r1cs_device), and the density bitmaps' prefix counts. Host-only and header-only, so the host
// tests (tests/test_device_r1cs_on_host.cpp) run the same plan on every machine.
//
// Load balance: nearly every row of a Filecoin circuit has 1 to 3 terms, a few hundreds or thousands (MultiEq
// packs up to ~250 bit equalities into one row). In a 2 KiB PoRep partition (2.69 M rows) 99.5 % of A's rows
// have at most 3 terms, yet 3,276 rows of more than 64 terms (1,740 of more than 1,024) hold 41 % of A's
// 7.1 M terms; B's rows have 1 or 2 terms, C's at most 3 but for 2,697 of up to 256. A row of at most
// SHORT_ROW_TERMS terms is summed by one thread of the short-row kernel (a warp waits at most SHORT_ROW_TERMS
// terms for its slowest row); a longer row is cut into pieces of at most PIECE_TERMS terms, a warp per piece
// (32 lanes, coalesced term reads, a shuffle reduction), the pieces' sums added per row afterwards. So no warp
// waits on more than PIECE_TERMS / 32 terms per lane whatever the longest row.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuzk::cuda::r1cs_plan {

inline constexpr std::uint32_t SHORT_ROW_TERMS = 16;
inline constexpr std::uint32_t PIECE_TERMS = 1024;

// Terms [begin, end) of |row|, summed by one warp.
struct piece {
    std::uint32_t row, begin, end;
};
// A long row's pieces: [first_piece, first_piece + pieces).
struct long_row {
    std::uint32_t row, first_piece, pieces;
};

struct long_rows {
    std::vector<piece> pieces;
    std::vector<long_row> rows;
    std::uint64_t terms = 0;  // in the long rows
};

// Adds the rows [first_row, first_row + starts.size() - 1) with row_start entries |starts| (each row's first term,
// then the next row's; not decreasing, below 2^32) to |plan| when longer than SHORT_ROW_TERMS.
template <class Offset>
void add_long_rows(long_rows& plan, std::uint64_t first_row, std::span<const Offset> starts) {
    for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
        const std::uint32_t b = std::uint32_t(starts[i]), e = std::uint32_t(starts[i + 1]);
        if (e - b <= SHORT_ROW_TERMS) continue;
        const std::uint32_t first = std::uint32_t(plan.pieces.size());
        for (std::uint32_t t = b; t < e; t += std::min(PIECE_TERMS, e - t))
            plan.pieces.push_back({std::uint32_t(first_row + i), t, t + std::min(PIECE_TERMS, e - t)});
        plan.rows.push_back({std::uint32_t(first_row + i), first, std::uint32_t(plan.pieces.size()) - first});
        plan.terms += e - b;
    }
}

// For each 64-bit word of |density|, the set bits in the words before it: element i's place among those
// selected is prefix[i / 64] + popcount(word & (bit(i % 64) - 1)). Returns the total in |count|.
inline std::vector<std::uint32_t> density_prefix(std::span<const std::uint64_t> density, std::uint64_t& count) {
    std::vector<std::uint32_t> prefix(density.size());
    std::uint64_t n = 0;
    for (std::size_t w = 0; w < density.size(); ++w) {
        prefix[w] = std::uint32_t(n);
        n += unsigned(std::popcount(density[w]));
    }
    if (n > UINT32_MAX) throw std::invalid_argument("density of " + std::to_string(n) + " set bits: over 2^32");
    count = n;
    return prefix;
}

}  // namespace cuzk::cuda::r1cs_plan
