// The PoSt branch of `cuzk circuit-info`: the size of one fallback PoSt partition circuit (WindowPoSt or
// WinningPoSt), synthesized blank into a counting constraint system, printed as JSON with the registered
// proof's shape and the stem of its published parameter files.
#pragma once

#include "common/post/registered_post_proof.hpp"

namespace cuzk::cli {

// |witness_timing|: also time one synthesis with witness computation (random values of the right shape, one
// thread). Returns the exit code.
int run_post_circuit_info(const post::registered_post_proof& proof, bool witness_timing);

}  // namespace cuzk::cli
