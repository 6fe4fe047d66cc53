// prepare_compact's checks, on the CPU before the CUDA lock: a compact partition against its circuit's R1CS
// matrices (input_error: a witness of another circuit) and the parameters against the matrices'
// counts and densities (std::invalid_argument naming the first vector that does not fit, in the words of
// groth16::prepare_partition, which checks the same for a full witness).
#pragma once

#include "common/groth16/keys.hpp"
#include "gpud/proving_backend.hpp"

namespace cuzk::gpud {

// Returns log_m: the domain 2^log_m holds the prover's rows (circuit rows, then one per input).
unsigned check_compact_partition(const compact_partition& w, const groth16::parameters& params);

}  // namespace cuzk::gpud
