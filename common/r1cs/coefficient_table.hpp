// The distinct coefficients of a circuit's matrices, each given a 16-bit index in order of first use:
// index 0 is 1 and index 1 is -1 (cs::FR_ONE, cs::FR_MINUS_ONE), present from the start. Circuits use few:
// +-1, powers of two (bit packing), Poseidon's round constants and MDS entries.
//
// index_of is on the recording hot path (one call per term): +-1 and a repeat of the previous coefficient
// are answered by comparison; the rest by an open-addressed table kept at most half full and grown by
// doubling from 1024 slots, so that it stays as small as the circuit's coefficients allow (a 32 GiB PoRep
// partition has 2255: 32 KiB of slots and 72 KiB of values). Counting a 512 MiB partition took 0.52 s with
// 2^17 slots from the start, 0.33 s so (0.30 s counting no coefficients).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/cs/linear_combination.hpp"
#include "common/ff/bls12_381.hpp"

namespace cuzk::r1cs {

class coefficient_table {
public:
    static constexpr size_t CAPACITY = size_t(1) << 16;  // the reach of a 16-bit index
    static constexpr ff::fr_t ONE = cs::FR_ONE;
    static constexpr ff::fr_t MINUS_ONE = cs::FR_MINUS_ONE;

    coefficient_table();

    // The index of |c|, adding it when new. Throws std::length_error when |c| would be coefficient
    // CAPACITY + 1.
    std::uint16_t index_of(const ff::fr_t& c) {
        if (c.l[0] == ONE.l[0] && c == ONE) return 0;
        if (c.l[0] == MINUS_ONE.l[0] && c == MINUS_ONE) return 1;
        if (c.l[0] == last_value_.l[0] && c == last_value_) return last_index_;
        last_index_ = lookup(c);
        last_value_ = c;
        return last_index_;
    }

    std::size_t size() const { return values_.size(); }
    const std::vector<ff::fr_t>& values() const { return values_; }
    std::vector<ff::fr_t> take() && { return std::move(values_); }

private:
    std::uint16_t lookup(const ff::fr_t& c);
    void insert(std::uint32_t index);
    void grow();

    std::vector<ff::fr_t> values_;
    std::vector<std::uint32_t> slots_;  // index + 1, 0 when empty
    ff::fr_t last_value_ = ONE;
    std::uint16_t last_index_ = 0;
};

}  // namespace cuzk::r1cs
