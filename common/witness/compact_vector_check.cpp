#include "common/witness/compact_vector_check.hpp"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>

namespace cuzk::witness {

namespace {

[[noreturn]] void inconsistent(const std::string& what) {
    throw std::runtime_error("compact vector: " + what);
}

}  // namespace

void check_consistent(const compact_vector_view& v) {
    const std::size_t blocks = v.size / compact_block + (v.size % compact_block != 0);
    for (const auto& [name, length] : {std::pair{"full_mask", v.full_mask.size()},
                                       std::pair{"bit_value", v.bit_value.size()},
                                       std::pair{"full_before", v.full_before.size()}}) {
        if (length != blocks)
            inconsistent(fmt::format("{} has {} entries, {} values need {} blocks", name, length, v.size, blocks));
    }
    std::uint64_t full = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
        if (v.full_before[b] != full)
            inconsistent(fmt::format("full_before[{}] is {}, the full_mask words before it count {} full values", b,
                                     v.full_before[b], full));
        const std::uint64_t mask = v.full_mask[b], bits = v.bit_value[b];
        if (mask & bits)
            inconsistent(fmt::format("value {} is both full and a one bit (block {})",
                                     b * compact_block + unsigned(std::countr_zero(mask & bits)), b));
        full += unsigned(std::popcount(mask));
    }
    if (const unsigned used = unsigned(v.size % compact_block); used != 0) {
        const std::uint64_t beyond = ~((std::uint64_t(1) << used) - 1);
        if ((v.full_mask[blocks - 1] | v.bit_value[blocks - 1]) & beyond)
            inconsistent(fmt::format("bits set at or beyond the size {} in the last block (full_mask {:#018x}, "
                                     "bit_value {:#018x})",
                                     v.size, v.full_mask[blocks - 1], v.bit_value[blocks - 1]));
    }
    if (full != v.full.size())
        inconsistent(fmt::format("full_mask marks {} full values, |full| holds {}", full, v.full.size()));
    for (std::size_t i = 0; i < v.full.size(); ++i) {
        const ff::fr_t& x = v.full[i];
        if (ff::geq(x.raw(), ff::fr_t::MODULUS))
            inconsistent(fmt::format("full value {} is not reduced below the modulus", i));
        if (x == ff::fr_t::zero() || x == ff::fr_t::one())
            inconsistent(fmt::format("full value {} is {}, which is stored as a bit", i, x.is_zero() ? 0 : 1));
    }
}

}  // namespace cuzk::witness
