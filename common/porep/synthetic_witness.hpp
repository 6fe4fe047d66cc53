// A partition witness of the right shape filled with random field elements and indices: it drives
// every witness computation of synthesis (bit decompositions, SHA256 words, Poseidon permutations,
// picks) at production size without a sealed sector, for timing synthesis. The system it makes is
// not satisfied (the values are unrelated), and nothing here pretends otherwise.
#pragma once

#include <cstdint>

#include "common/porep/stacked_circuit.hpp"

namespace cuzk::porep {

partition_witness make_synthetic_witness(const stacked_circuit_shape& shape, uint64_t nodes, uint64_t seed);

}  // namespace cuzk::porep
