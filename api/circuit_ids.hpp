// The circuit ids of PreloadSRS / EvictSRS / GetStatus as the API answers them: daemon/circuit_ids.hpp, its
// input_error an INVALID_ARGUMENT.
#pragma once

#include <string>

#include "daemon/circuit_ids.hpp"

namespace cuzk::api {

// Throws api_error (INVALID_ARGUMENT for an unknown id, naming the ids known).
std::string circuit_spec_of(const std::string& circuit_id);
using daemon::circuit_id_of;
using daemon::proof_kind_of;

}  // namespace cuzk::api
