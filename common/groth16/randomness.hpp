// Randomness for setup (toxic waste), proving (blinding r, s) and batch verification (combination
// coefficients). Callers pass any 64-bit generator; system_rng() draws from the operating system
// (OpenSSL's CSPRNG), which is what production proofs must use: predictable r and s leak the witness.
#pragma once

#include <cstdint>
#include <functional>

#include "common/ff/bls12_381.hpp"

namespace cuzk::groth16 {

using rng_fn = std::function<uint64_t()>;

// A generator backed by RAND_bytes; throws std::runtime_error if the CSPRNG fails.
rng_fn system_rng();

// Uniform non-zero element of Fr (setup trapdoors must be invertible).
ff::fr_t random_nonzero_fr(rng_fn& rng);

}  // namespace cuzk::groth16
