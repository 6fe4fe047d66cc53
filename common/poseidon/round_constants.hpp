// Poseidon round constants: generated from the Grain LFSR exactly as neptune does, and compressed
// for neptune's optimized permutation.
#pragma once

#include <cstddef>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/poseidon/mds.hpp"

namespace cuzk::poseidon {

// neptune's LFSR parameters: a prime field, and S-box tag 1 although the S-box is x^5 (the
// reference script uses 0 for x^alpha; neptune's constants, and so Filecoin's, are drawn with 1).
inline constexpr unsigned GRAIN_FIELD_PRIME = 1;
inline constexpr unsigned GRAIN_SBOX_NEPTUNE = 1;
inline constexpr unsigned FR_FIELD_BITS = 255;

// (R_F + R_P) * t constants, round-major: round r adds elements [r*t, (r+1)*t) to the state.
std::vector<ff::fr_t> generate_round_constants(unsigned field, unsigned sbox, unsigned field_size, size_t t,
                                               size_t r_f, size_t r_p);

// The round constants rearranged so that every constant is added right after an S-box, and a
// partial round adds a single constant, to element 0 (t * R_F + R_P values):
//   [t: added before the first S-box layer]
//   [t per full round 0 .. R_F/2 - 2: M^-1 * (next round's constants)]
//   [t: after the last full round of the first half; it carries everything the partial rounds'
//       constants leave on elements 1..t-1, pushed back through M^-1]
//   [R_P: one per partial round]
//   [t per full round of the second half but its last: M^-1 * (next round's constants)]
// Adding c after an S-box and then applying M equals applying M and then adding M * c, which is
// how every constant is moved back by one layer.
std::vector<ff::fr_t> compress_round_constants(size_t t, size_t r_f, size_t r_p,
                                               const std::vector<ff::fr_t>& round_constants,
                                               const square_matrix& mds_inverse);

}  // namespace cuzk::poseidon
