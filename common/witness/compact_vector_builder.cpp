#include "common/witness/compact_vector_builder.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace cuzk::witness {

void compact_vector_builder::start_block() {
    if (full_.size() > std::numeric_limits<std::uint32_t>::max())
        throw std::length_error(fmt::format("compact vector: {} full values before value {}, full_before counts "
                                            "at most 2^32 - 1",
                                            full_.size(), size_));
    full_mask_.push_back(0);
    bit_value_.push_back(0);
    full_before_.push_back(std::uint32_t(full_.size()));
}

void compact_vector_builder::reserve(std::uint64_t values, std::uint64_t full) {
    const std::uint64_t blocks = (values + compact_block - 1) / compact_block;
    full_mask_.reserve(blocks);
    bit_value_.reserve(blocks);
    full_before_.reserve(blocks);
    full_.reserve(full);
}

void compact_vector_builder::clear() {
    size_ = 0;
    full_mask_.clear();
    bit_value_.clear();
    full_before_.clear();
    full_.clear();
}

}  // namespace cuzk::witness
