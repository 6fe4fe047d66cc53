// The names under which rust-fil-proofs publishes the Groth16 parameters of a fallback PoSt circuit
// (parameters.json; parameter_cache.rs): "v28-" + cache prefix + "-" + hex SHA256 of the public parameters'
// identifier. The identifier holds the sector size and the circuit's challenge and sector counts, not the API
// version, so Window V1 and V1_1 of a size share one set.
#pragma once

#include <string>

#include "common/post/registered_post_proof.hpp"

namespace cuzk::post {

// "FallbackPoSt::PublicParams{sector_size: 34359738368, challenge_count: 10, sector_count: 2349}".
std::string parameter_identifier(const registered_post_proof& proof);

// "proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0".
std::string parameter_cache_prefix(const registered_post_proof& proof);

// "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded6...edc": add ".params" or ".vk".
std::string official_params_stem(const registered_post_proof& proof);

}  // namespace cuzk::post
