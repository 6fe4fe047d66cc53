// UInt64 as rust-fil-proofs' gadgets/uint64.rs: 64 booleans, least significant first. The PoRep
// circuit allocates each challenge as one (64 booleanity constraints), exposes it as one public
// input (pack_into_input: 1 input, 1 constraint) and feeds its big-endian bits to the label hash.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/gadgets/boolean.hpp"

namespace cuzk::gadgets {

class uint64 {
public:
    static uint64 constant(uint64_t value);
    static uint64 alloc(cs::constraint_system& cs, uint64_t value);

    uint64_t value() const { return value_; }
    const std::array<boolean, 64>& bits_le() const { return bits_; }
    // Most significant bit first.
    std::vector<boolean> bits_be() const;
    // One public input holding the value (multipack of the 64 little-endian bits).
    void pack_into_input(cs::constraint_system& cs) const;

private:
    std::array<boolean, 64> bits_{};
    uint64_t value_ = 0;
};

}  // namespace cuzk::gadgets
