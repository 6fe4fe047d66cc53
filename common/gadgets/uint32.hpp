// UInt32: a 32-bit word as 32 boolean gadgets, least significant bit first, with its value.
// Rotations and shifts only re-index bits (free); xor, ch and maj work bit by bit (costs in
// boolean.hpp); addmany adds 2..10 words mod 2^32 by allocating the sum's bits and enforcing the
// integer sum through a MultiEq. Same construction as bellperson's gadgets/uint32.rs.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "common/gadgets/boolean.hpp"
#include "common/gadgets/multieq.hpp"

namespace cuzk::gadgets {

class uint32 {
public:
    uint32() = default;  // the constant 0
    static uint32 constant(uint32_t value);
    // 32 allocated bits (32 booleanity constraints), least significant first.
    static uint32 alloc(cs::constraint_system& cs, uint32_t value);
    // bits[0] is the most significant bit (SHA256's reading of a message word).
    static uint32 from_bits_be(std::span<const boolean> bits);
    // bits[0] is the least significant bit.
    static uint32 from_bits_le(std::span<const boolean> bits);

    const std::array<boolean, 32>& bits_le() const { return bits_; }
    // Appends the 32 bits, most significant first.
    void append_bits_be(std::vector<boolean>& out) const;
    // The word's value; meaningful only when synthesizing with a witness (or for constants).
    uint32_t value() const { return value_; }
    bool is_constant() const;

    uint32 rotr(unsigned by) const;
    uint32 shr(unsigned by) const;

private:
    std::array<boolean, 32> bits_{};
    uint32_t value_ = 0;
};

uint32 xor_words(cs::constraint_system& cs, const uint32& a, const uint32& b);
// Bitwise (a AND b) XOR ((NOT a) AND c).
uint32 sha256_ch(cs::constraint_system& cs, const uint32& a, const uint32& b, const uint32& c);
// Bitwise (a AND b) XOR (a AND c) XOR (b AND c).
uint32 sha256_maj(cs::constraint_system& cs, const uint32& a, const uint32& b, const uint32& c);
// Sum of 2..10 words mod 2^32. All-constant operands give a constant; otherwise the full sum's
// bit length L = bits(n * (2^32 - 1)) bits are allocated (L booleanity constraints) and the equality
// sum(operands) == sum(result bits) joins |meq| (L bits of its capacity).
uint32 addmany(multieq& meq, std::span<const uint32> operands);

}  // namespace cuzk::gadgets
