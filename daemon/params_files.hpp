// Where the parameters of a circuit shape live in [gpud] params_dir; gpud (params_store) and assemblerd
// (proof_verifier) find them through resolve_params_files, so both read the same pair.
//   PoRep, porep:<registered proof>: the file rust-fil-proofs publishes for its sector size first,
//     v28-stacked-proof-of-replication-<tree>-sha256_hasher-<digest>.params and .vk (one set per sector size,
//     shared by V1, V1_1 and the synthetic variants: the circuit does not depend on porep_id), so params_dir can
//     be the parameter cache Curio already has (FIL_PROOFS_PARAMETER_CACHE); then the test name
//     porep_<registered proof>.params and .vk, what `cuzk setup --circuit porep:<registered proof>` writes.
//   PoSt, post:<registered PoSt proof>: the published v28-proof-of-spacetime-fallback-...-<digest>.params and .vk
//     first (post/official_params.hpp: Window V1 and V1_1 of a size share one set), then the test name
//     post_<name>.params and .vk (`cuzk setup --circuit post:<name>`); never generated.
//   SnapDeals, update:<registered update proof>: the published
//     v28-empty-sector-update-merkletree-poseidon_hasher-<tree>-<digest>.params and .vk first
//     (update/official_params.hpp), then the test name update_<name>.params and .vk (`cuzk setup --circuit
//     update:<name>`); never generated.
//   Test circuits: <stem>.params and .vk, stem = the spec without its seed, ':' -> '_' ("mul:64@3" -> "mul_64"),
//     the names `cuzk setup` writes (params_store generates a missing pair).
#pragma once

#include <filesystem>
#include <string>

namespace cuzk::daemon {

std::string circuit_shape(const std::string& spec);  // "mul:64@3" -> "mul:64"

// Whether |spec| is a Filecoin circuit whose parameters rust-fil-proofs publishes (porep:, post:, update:): its
// files are never generated, and synthetic parameters may stand in for them ([gpud] synthetic_params).
bool has_published_params(const std::string& spec);

// The test names: <dir>/<stem>.params and .vk.
std::filesystem::path params_path(const std::filesystem::path& dir, const std::string& spec);
std::filesystem::path vk_path(const std::filesystem::path& dir, const std::string& spec);

struct params_files {
    std::filesystem::path params, vk;
    friend bool operator==(const params_files&, const params_files&) = default;
};

// The published pair of a PoRep, PoSt or SnapDeals spec (whether or not it exists); throws input_error for a
// registered proof this build does not know. Empty paths for a test circuit.
params_files official_params_files(const std::filesystem::path& dir, const std::string& spec);

// The pair to read for |spec|. PoRep, PoSt, SnapDeals: the official pair where its .params or .vk exists, else the test pair
// where one of its files exists, else input_error naming the official file expected and the test name accepted.
// Test circuits: the test pair, existing or not.
params_files resolve_params_files(const std::filesystem::path& dir, const std::string& spec);

}  // namespace cuzk::daemon
