// The SnapDeals branch of `cuzk circuit-info`: the size of one EmptySectorUpdate partition circuit,
// synthesized blank into a counting constraint system, printed as JSON with the registered proof's shape and the
// stem of its published parameter files; with --scalar-census, the classes of one partition's MSM scalars.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/update/update_shape.hpp"

namespace cuzk::cli {

// The witness a --scalar-census counts: every partition's vanilla proof (files in partition order, as
// prove-update reads them), the update's public values (hex as stored; h empty for the default) and the
// partition to count.
struct update_census_input {
    std::vector<std::string> vanilla;
    std::string comm_r_old, comm_d_new, comm_r_new, h;
    unsigned partition = 0;
};

// |witness_timing|: also time one synthesis with witness computation (random values of the right shape, one
// thread). |census|: also synthesize that partition as synthd does and count its MSM scalars by class
// (scalar_census_report). Returns the exit code.
int run_update_circuit_info(const update::registered_update_proof& proof, bool witness_timing,
                            const std::optional<update_census_input>& census = std::nullopt);

}  // namespace cuzk::cli
