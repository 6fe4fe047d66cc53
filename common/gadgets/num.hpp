// AllocatedNum: a field element held by one private variable, with its witness value, and the few
// operations the PoRep circuit applies to whole elements. Each matches bellperson's num.rs /
// rust-fil-proofs' gadgets/constraint.rs constraint for constraint:
//   inputize        1 public input, 1 constraint (input * 1 = num)
//   to_bits_le      255 bits (255 booleanity constraints) + 1 unpacking constraint (0 * 0 = sum - num)
//   enforce_equal   1 constraint (a * 1 = b)
//   add             1 variable, 1 constraint ((a + b) * 1 = sum)
//   pack_bits       1 variable, 1 constraint (sum 2^i bit_i * 1 = num), at most 254 bits
#pragma once

#include <span>
#include <vector>

#include "common/gadgets/boolean.hpp"

namespace cuzk::gadgets {

struct allocated_num {
    cs::variable var;
    ff::fr_t value;  // zero when the system has no witness
};

allocated_num alloc_num(cs::constraint_system& cs, const ff::fr_t& value);
void inputize(cs::constraint_system& cs, const allocated_num& num);
// Little-endian bits of |num| (not checked to be below r: bellperson's non-strict to_bits_le).
std::vector<boolean> num_to_bits_le(cs::constraint_system& cs, const allocated_num& num);
void enforce_equal(cs::constraint_system& cs, const allocated_num& a, const allocated_num& b);
allocated_num add_nums(cs::constraint_system& cs, const allocated_num& a, const allocated_num& b);
// The first min(254, |bits|) bits, bit i weighted 2^i, as one new variable.
allocated_num pack_bits(cs::constraint_system& cs, std::span<const boolean> bits);

// rust-fil-proofs' reverse_bit_numbering: pads to whole bytes with constant false, then reverses
// the bit order inside each byte (little-endian bits of an Fr -> SHA256's byte-wise MSB-first order).
std::vector<boolean> reverse_bit_numbering(std::span<const boolean> bits);

}  // namespace cuzk::gadgets
