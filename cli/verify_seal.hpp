// The body of `cuzk verify-seal`, callable: checks a PoRep C2 proof as filecoin-ffi's verify_seal does, for the
// command and for `cuzk demo`.
#pragma once

#include <cstdint>
#include <string>

namespace cuzk::cli {

struct verify_seal_options {
    std::string vk, registered_proof, prover_id, ticket, seed, comm_r, comm_d, proof;  // files and 32-byte hex
    // What filecoin-proofs' PoRepConfig carries beside the registered proof; empty: the registered proof's own
    // (its id as porep id, nonce 0; its API version). Another implementation may seal with others.
    std::string porep_id, api_version;  // 32-byte hex; "1.0.0", "1.1.0" or "1.2.0"
    uint64_t sector_id = 0;
};

// True when every 192-byte partition proof of the file |o.proof| verifies. Throws input_error for a bad value,
// a key of another sector size or a proof file of the wrong length or encoding.
bool verify_seal(const verify_seal_options& o);

}  // namespace cuzk::cli
