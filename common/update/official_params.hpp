// The names under which rust-fil-proofs publishes the Groth16 parameters of a SnapDeals circuit
// (parameters.json; parameter_cache.rs): "v28-empty-sector-update-" + tree R's display name + "-" + hex SHA256
// of the public parameters' identifier, "empty_sector_update::PublicParams{ sector_nodes: N }" (note the spaces
// inside the braces). Recomputed for 32 and 64 GiB they are the published stems (reference 3.6):
//   ...-8-8-0-3b7f44a9...9d18 and ...-8-8-2-102e1444...83a7.
#pragma once

#include <string>

#include "common/update/update_shape.hpp"

namespace cuzk::update {

// "empty_sector_update::PublicParams{ sector_nodes: 1073741824 }".
std::string parameter_identifier(const update_shape& shape);

// "empty-sector-update-merkletree-poseidon_hasher-8-8-0".
std::string parameter_cache_prefix(const update_shape& shape);

// "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9...": add ".params" or ".vk".
std::string official_params_stem(const update_shape& shape);

}  // namespace cuzk::update
