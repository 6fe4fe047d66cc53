// Where the parameters of a circuit shape live: <params_dir>/<stem>.params and .vk, stem = the circuit spec
// without its seed, ':' -> '_' ("mul:64@3" -> "mul_64"), the names `cuzk setup` writes.
// PoRep: every partition of a registered proof has the shape porep:<registered proof>, so its files are
// <params_dir>/porep_<registered proof>.params and .vk (porep_StackedDrg2KiBV1_1.params), what
// `cuzk setup --circuit porep:<registered proof> --out <params_dir>` writes; published parameters are linked
// or copied under these names. A missing PoRep file is an error naming it (never generated here).
// For the built-in test circuits a missing pair is generated (random toxic waste: tests and demo only; logged
// as such), .vk first, so that whoever finds a .params also finds its .vk; processes that miss the same pair
// at once (the gpuds of several GPUs) take turns on an flock of <params_dir>/<stem>.lock, so one generates and
// the others load its files.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/groth16/keys.hpp"

namespace cuzk::daemon {

std::string circuit_shape(const std::string& spec);  // "mul:64@3" -> "mul:64"
std::filesystem::path params_path(const std::filesystem::path& dir, const std::string& spec);
std::filesystem::path vk_path(const std::filesystem::path& dir, const std::string& spec);

// Resident parameters per shape (the SRS stays loaded across partitions and jobs). Thread-safe.
class params_store {
public:
    explicit params_store(std::filesystem::path dir) : dir_(std::move(dir)) {}
    // Loads (or, for a test circuit without files, generates) once; throws input_error for a bad or, for
    // PoRep, missing file.
    std::shared_ptr<const groth16::parameters> get(const std::string& spec);

private:
    std::filesystem::path dir_;
    std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<const groth16::parameters>> loaded_;
};

}  // namespace cuzk::daemon
