// What assemblerd keeps of a checked PoRep C1 beside it in the spool, so that a restart (journal replay) and the
// verification of the assembled proof need not parse the C1 again (~1 s for a 32 GiB C1 of ~40 MB):
// the registered proof and the public inputs, as text lines "<key> <value>":
//   cuzk-porep-public-inputs 1
//   registered_proof StackedDrg32GiBV1_1
//   replica_id <64 hex: the 32 little-endian bytes>   (and comm_d, comm_r)
//   seed <64 hex: the 32 bytes>
// The file is written whole under a temporary name and renamed; one that is missing, torn or of another version
// is ignored (the C1 is parsed instead and the file written again).
#pragma once

#include <filesystem>
#include <optional>

#include "daemon/porep_job_input.hpp"

namespace cuzk::daemon {

// Throws std::runtime_error naming the file when it cannot be written.
void write_porep_public_inputs(const std::filesystem::path& path, const porep_job_input& in);

// The job input without its C1 (the graph of its registered proof rebuilt), or nullopt where the file is missing
// or not one this version wrote whole.
std::optional<porep_job_input> read_porep_public_inputs(const std::filesystem::path& path);

}  // namespace cuzk::daemon
