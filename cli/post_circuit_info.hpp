// The PoSt branch of `cuzk circuit-info`: the size of one fallback PoSt partition circuit (WindowPoSt or
// WinningPoSt), synthesized blank into a counting constraint system, printed as JSON with the registered
// proof's shape and the stem of its published parameter files; with --scalar-census, the classes of the MSM
// scalars of the partition that given vanilla proofs make (what bounds its MSMs on the GPU).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/post/registered_post_proof.hpp"

namespace cuzk::cli {

// The witness a --scalar-census counts: the partition's vanilla proofs (files, as prove-post reads them) and the
// challenge randomness (hex).
struct post_census_input {
    std::string randomness;
    std::vector<std::string> vanilla;
};

// |witness_timing|: also time one synthesis with witness computation (random values of the right shape, one
// thread). |census|: also synthesize the partition of those vanilla proofs as synthd does and count its MSM
// scalars by class (scalar_census_report). Returns the exit code.
int run_post_circuit_info(const post::registered_post_proof& proof, bool witness_timing,
                          const std::optional<post_census_input>& census = std::nullopt);

}  // namespace cuzk::cli
