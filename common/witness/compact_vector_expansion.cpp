#include "common/witness/compact_vector_expansion.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <stdexcept>

namespace cuzk::witness {

namespace {

constexpr std::uint64_t parallel_from = std::uint64_t(1) << 16;
// 1024 blocks: 64 Ki values, 2 MiB written per task.
constexpr std::size_t blocks_per_task = 1024;

void expand_blocks(const compact_vector_view& v, std::size_t first, std::size_t last, ff::fr_t* out) {
    static constexpr ff::fr_t bit_values[2] = {ff::fr_t::zero(), ff::fr_t::one()};
    for (std::size_t b = first; b < last; ++b) {
        const std::uint64_t begin = b * compact_block;
        const unsigned n = unsigned(std::min<std::uint64_t>(compact_block, v.size - begin));
        const std::uint64_t mask = v.full_mask[b], bits = v.bit_value[b];
        ff::fr_t* dst = out + begin;
        for (unsigned k = 0; k < n; ++k) dst[k] = bit_values[(bits >> k) & 1];
        // Full values are ~1 % of a PoRep witness: overwrite their slots, lowest set bit first.
        const ff::fr_t* full = v.full.data() + v.full_before[b];
        for (std::uint64_t m = mask; m; m &= m - 1) dst[std::countr_zero(m)] = *full++;
    }
}

}  // namespace

void expand_into(const compact_vector_view& v, std::span<ff::fr_t> out) {
    if (out.size() != v.size)
        throw std::invalid_argument(
            fmt::format("expanding a compact vector of {} values into room for {}", v.size, out.size()));
    const std::size_t blocks = v.blocks();
    if (v.size < parallel_from) {
        expand_blocks(v, 0, blocks, out.data());
        return;
    }
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks, blocks_per_task),
                      [&](const tbb::blocked_range<std::size_t>& r) { expand_blocks(v, r.begin(), r.end(), out.data()); });
}

std::vector<ff::fr_t> expand(const compact_vector_view& v) {
    std::vector<ff::fr_t> out(v.size);
    expand_into(v, out);
    return out;
}

}  // namespace cuzk::witness
