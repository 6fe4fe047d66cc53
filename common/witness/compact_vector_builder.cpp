#include "common/witness/compact_vector_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>

#include "common/util/huge_pages.hpp"

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

void compact_vector_builder::append(const compact_vector_view& other) {
    std::uint64_t taken = 0;  // of other's full values
    auto copy_full = [&](std::uint64_t count) {
        if (taken + count > other.full.size())
            throw std::invalid_argument(fmt::format("compact vector append: the view's masks name more than its {} "
                                                    "full values",
                                                    other.full.size()));
        full_.insert(full_.end(), other.full.begin() + taken, other.full.begin() + (taken + count));
        taken += count;
    };
    for (std::size_t b = 0; b < other.blocks(); ++b) {
        const std::uint64_t n = std::min<std::uint64_t>(compact_block, other.size - b * compact_block);
        const std::uint64_t mask = other.full_mask[b], bits = other.bit_value[b];
        // The block goes to this vector's values size_ .. size_ + n: the low |head| values fill the open block,
        // the rest start the next one.
        const unsigned k = unsigned(size_ % compact_block);
        if (k == 0) start_block();
        const std::uint64_t head = std::min<std::uint64_t>(n, compact_block - k);
        const std::uint64_t head_mask = head == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << head) - 1;
        full_mask_.back() |= (mask & head_mask) << k;
        bit_value_.back() |= (bits & head_mask) << k;
        copy_full(unsigned(std::popcount(mask & head_mask)));
        size_ += head;
        if (head == n) continue;
        start_block();  // its full_before counts the head's full values
        full_mask_.back() = mask >> head;
        bit_value_.back() = bits >> head;
        copy_full(unsigned(std::popcount(mask >> head)));
        size_ += n - head;
    }
    if (taken != other.full.size())
        throw std::invalid_argument(fmt::format("compact vector append: the view's masks name {} full values, it "
                                                "holds {}",
                                                taken, other.full.size()));
}

void compact_vector_builder::reserve(std::uint64_t values, std::uint64_t full) {
    const std::uint64_t blocks = (values + compact_block - 1) / compact_block;
    full_mask_.reserve(blocks);
    bit_value_.reserve(blocks);
    full_before_.reserve(blocks);
    full_.reserve(full);
    // GBs at the 32 GiB WindowPoSt shape, filled once: huge pages spare most of the page faults.
    util::advise_huge_pages(full_.data(), full_.capacity() * sizeof(ff::fr_t));
    util::advise_huge_pages(full_mask_.data(), full_mask_.capacity() * sizeof(std::uint64_t));
    util::advise_huge_pages(bit_value_.data(), bit_value_.capacity() * sizeof(std::uint64_t));
}

void compact_vector_builder::clear() {
    size_ = 0;
    full_mask_.clear();
    bit_value_.clear();
    full_before_.clear();
    full_.clear();
}

}  // namespace cuzk::witness
