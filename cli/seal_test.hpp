// The body of `cuzk seal-test`, callable: seals a random test sector in memory (up to 8 MiB) and writes what C2
// and verify-seal need, for the command and for `cuzk demo`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace cuzk::cli {

struct seal_test_options {
    std::string registered_proof, out, seed, ticket, prover_id, rng = "cuzk";  // hex values; empty: from |rng|
    uint64_t sector_id = 1;
    bool synthetic = false;  // the command's --synthetic; seal_test_sector ignores it
    // The command's PoSt and several-sector flags (seal_test_post.hpp); seal_test_sector ignores them.
    std::string post_randomness, post_api_version = "1.2.0";
    unsigned sectors = 1;
};

// Writes <out>/c1.json (SealCommitPhase1Output as filecoin-ffi writes it) and <out>/seal.json (registered proof,
// sector id, prover id, ticket, seed, comm_r, comm_d, replica id as the hex verify-seal takes) and returns
// seal.json's content. The same options give the same sector. Throws input_error for a bad value or directory.
nlohmann::ordered_json seal_test_sector(const seal_test_options& o);

}  // namespace cuzk::cli
