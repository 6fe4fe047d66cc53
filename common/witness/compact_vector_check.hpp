// Whether a compact_vector_view obeys its invariants (compact_vector.hpp), for a view over memory another
// process wrote (a ring slot): array lengths against |size|, full_before equal to the running popcount of
// full_mask, |full| exactly the full values counted, no bit set at or beyond |size|, no value both full and
// a one bit, and every full value a reduced field element that is neither 0 nor 1 (those are bits).
// O(blocks + |full|): about 2 M blocks and 1.7 M full values at the 32 GiB PoRep shape.
#pragma once

#include "common/witness/compact_vector.hpp"

namespace cuzk::witness {

// Throws std::runtime_error naming the first inconsistency (which array, which block or value, the numbers).
void check_consistent(const compact_vector_view& v);

}  // namespace cuzk::witness
