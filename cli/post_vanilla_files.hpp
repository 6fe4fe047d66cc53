// The vanilla proofs of one PoSt partition read from files as Curio hands them over (one bincode
// FallbackPoStSectorProof per file and sector, vanilla_bincode.hpp), for the commands that build the partition's
// circuit in one process (prove-post, circuit-info --scalar-census): every file decoded against the registered
// proof's shape, the sectors put in ascending order as verifiers take them (a BTreeMap), a sector given twice
// refused naming both files.
#pragma once

#include <string>
#include <vector>

#include "common/post/registered_post_proof.hpp"
#include "common/post/vanilla_proof.hpp"

namespace cuzk::cli {

struct post_sectors {
    std::vector<post::fallback_sector_proof> sectors;  // ascending sector numbers
    std::vector<std::string> sources;                  // the file each came from, in the same order
};

// Throws input_error naming the option, the file and what is wrong (more files than the partition proves, a
// file that does not decode, a sector number given twice).
post_sectors read_post_sectors(const post::registered_post_proof& proof, const std::vector<std::string>& files,
                               const std::string& option);

}  // namespace cuzk::cli
