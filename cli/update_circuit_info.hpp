// The SnapDeals branch of `cuzk circuit-info`: the size of one EmptySectorUpdate partition circuit,
// synthesized blank into a counting constraint system, printed as JSON with the registered proof's shape and the
// stem of its published parameter files.
#pragma once

#include "common/update/update_shape.hpp"

namespace cuzk::cli {

// |witness_timing|: also time one synthesis with witness computation (random values of the right shape, one
// thread). Returns the exit code.
int run_update_circuit_info(const update::registered_update_proof& proof, bool witness_timing);

}  // namespace cuzk::cli
