// The circuit ids of PreloadSRS / EvictSRS / GetStatus and of [gpud] preload, as Curio's cuzk names parameter
// sets, and the circuit specs gpud loads parameters by.
//   porep-2k porep-8m porep-512m porep-32g porep-64g -> "porep:StackedDrg<size>V1_1" (V1 and V1_1 share one
//   parameter set); wpost-32g -> "post:StackedDrgWindow32GiBV1_1", winning-32g -> "post:StackedDrgWinning32GiBV1";
//   snap-32g, snap-64g -> "update:StackedDrgUpdate{32,64}GiBV1". A circuit spec itself ("porep:StackedDrg2KiBV1",
//   "post:StackedDrgWindow2KiBV1_1", "update:StackedDrgUpdate2KiBV1", or a built-in test circuit such as "mul:64")
//   is taken as it is: a test facility.
#pragma once

#include <string>

namespace cuzk::daemon {

// Throws input_error naming the id and the ids known (the API answers it INVALID_ARGUMENT).
std::string circuit_spec_of(const std::string& circuit_id);
// "porep:StackedDrg32GiBV1_1" -> "porep-32g"; a spec without an id stays as it is.
std::string circuit_id_of(const std::string& circuit_spec);
// The API's name of the proof kind of a circuit spec: "porep-c2", "snap-update", "test-circuit".
std::string proof_kind_of(const std::string& circuit_spec);

}  // namespace cuzk::daemon
