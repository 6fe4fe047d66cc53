// Insertion of a Merkle path's current node among its siblings, as rust-fil-proofs'
// gadgets/insertion.rs: the node goes after the index-th sibling (index given by little-endian bits),
// so the hash sees the children in tree order. Costs (each pick: 1 variable, 1 constraint):
//   arity 2: 2 picks; arity 4: 8 picks; arity 8: 20 picks + 1 NOR + 1 AND = 22 constraints;
//   other powers of two: size * (size - 1) picks through select().
#pragma once

#include <span>
#include <vector>

#include "common/gadgets/num.hpp"

namespace cuzk::gadgets {

// |cond| ? a : b, constrained by (b - a) * cond = b - result.
allocated_num pick(cs::constraint_system& cs, const boolean& cond, const allocated_num& a, const allocated_num& b);

// |elements| (arity - 1 siblings) with |element| inserted at the position |bits| encode (least
// significant first); |bits| must be allocated, non-negated bits and 2^|bits| = |elements| + 1.
std::vector<allocated_num> insert(cs::constraint_system& cs, const allocated_num& element,
                                  std::span<const boolean> bits, std::span<const allocated_num> elements);

// from[n], n given by |bits| (least significant first); |from| = 2^|bits|; |from| - 1 picks.
allocated_num select(cs::constraint_system& cs, std::span<const allocated_num> from, std::span<const boolean> bits);

}  // namespace cuzk::gadgets
