// Builds a compact_vector (compact_vector.hpp) one value at a time, as synthesis allocates them: Montgomery
// zero and one become bits, anything else is kept in full. push_back is inline and allocates only when an
// array outgrows its capacity (once per 64 values for the block arrays); clear() keeps the capacity, so a
// synthesis thread that builds one partition after another allocates nothing after the first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/witness/compact_vector.hpp"

namespace cuzk::witness {

class compact_vector_builder {
public:
    void push_back(const ff::fr_t& v) {
        const unsigned k = unsigned(size_ % compact_block);
        if (k == 0) start_block();
        // Exactly v == fr_t::zero() and v == fr_t::one(), limb by limb in the stored Montgomery form. Zeros and
        // ones are ~99 % of a PoRep witness in no predictable order, so only the rare full value takes a branch
        // (a branch on zero-or-not mispredicted every other value: 8.5 ns per alloc against 2 ns).
        constexpr ff::fr_t one = ff::fr_t::one();
        std::uint64_t nonzero = 0, not_one = 0;
        for (std::size_t i = 0; i < ff::fr_t::N; ++i) {
            nonzero |= v.l[i];
            not_one |= v.l[i] ^ one.l[i];
        }
        // (x | -x) >> 63 is 1 iff x != 0: arithmetic, which the compiler keeps free of branches where it splits
        // a && or & of comparisons into two.
        const std::uint64_t is_not_one = (not_one | (0 - not_one)) >> 63;
        const std::uint64_t is_full = is_not_one & ((nonzero | (0 - nonzero)) >> 63);
        bit_value_.back() |= (is_not_one ^ 1) << k;
        if (is_full) [[unlikely]] {
            full_mask_.back() |= std::uint64_t(1) << k;
            full_.push_back(v);
        }
        ++size_;
    }

    // Appends every value of |other| (another builder's view, not this one's), as push_back of each would, in
    // whole 64-value words: the bits of each block are shifted into place and only the full values are copied.
    // Parallel synthesis builds the parts of one vector on several threads and joins them with it. Throws
    // std::invalid_argument for a view whose masks and full values disagree (left partly appended).
    void append(const compact_vector_view& other);

    // Room for |values| values of which |full| are not 0 or 1, so that a known shape grows no array.
    void reserve(std::uint64_t values, std::uint64_t full);
    // Empties the vector, keeping the arrays' memory.
    void clear();

    std::uint64_t size() const { return size_; }
    std::uint64_t full_count() const { return full_.size(); }
    // Valid until the next push_back, clear or reserve.
    compact_vector_view view() const {
        return compact_vector_view{size_, full_mask_, bit_value_, full_before_, full_};
    }

private:
    // Throws std::length_error when the full values preceding the block overflow full_before's 32 bits.
    void start_block();

    std::uint64_t size_ = 0;
    std::vector<std::uint64_t> full_mask_, bit_value_;
    std::vector<std::uint32_t> full_before_;
    std::vector<ff::fr_t> full_;
};

}  // namespace cuzk::witness
