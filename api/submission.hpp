// A SubmitProofRequest, checked and turned into what assemblerd takes: the job's kind, priority, the bytes to
// spool as its input, and the digest that makes a retried request the same job.
//   POREP_SEAL_COMMIT (1): vanilla_proof is Curio's wrapper JSON {SectorNum, Phase1Out (base64 of the C1
//     output), SectorSize}, spooled as it is (the C1 reader takes the wrapper). registered_proof is the Go abi
//     RegisteredSealProof (StackedDrg{2KiB..64GiB}V1 0..4, V1_1 5..9); it must match sector_size and the C1's
//     own registered proof; with miner_id set, the C1's replica id must be the one of prover id
//     LEB128(miner_id) and sector_number (a C1 of another miner or sector is refused).
//   WINDOW_POST_PARTITION (3), WINNING_POST (4): vanilla_proofs (one bincode FallbackPoStSectorProof per sector,
//     ascending sector numbers), randomness and the Go abi RegisteredPoStProof, spooled as a PoSt job input
//     (daemon/post_job_input.hpp); the priority defaults to HIGH and CRITICAL.
//   SNAP_DEALS_UPDATE (2): vanilla_proofs (one bincode PartitionProof per partition, partition order: 16 at 32
//     and 64 GiB), comm_r_old, comm_d_new, comm_r_new (32 raw bytes each) and the Go abi RegisteredUpdateProof
//     (0..4), spooled as a SnapDeals job input (daemon/update_job_input.hpp) with the size's default h; the
//     priority defaults to NORMAL.
//   test_circuit_kind (100, outside Curio's enum, a test facility): vanilla_proof is the test job JSON
//     {"circuit": "mul:64", "partitions": 2, "seed": 1} (daemon/test_job_input.hpp).
// Anything else is INVALID_ARGUMENT naming the field.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "cuzk/v1/proving.pb.h"
#include "ipc/messages.hpp"

namespace cuzk::api {

inline constexpr int test_circuit_kind = 100;

struct submission {
    ipc::proof_kind kind = ipc::proof_kind::porep_c2;
    std::int32_t priority = 0;  // assemblerd's: higher first
    std::string payload;        // the job's input file
    std::string digest;         // hex SHA-256 over every field of the request
    std::string request_id;
};

// Throws api_error.
submission check_submission(const cuzk::v1::SubmitProofRequest& r);

// The API's priority (LOW..CRITICAL, or UNSPECIFIED: the kind's default) as assemblerd's: NORMAL is 0, the
// priority of `cuzk submit`; each step up or down is 100.
std::int32_t internal_priority(cuzk::v1::Priority p, cuzk::v1::ProofKind kind);

// The 32-byte prover id of an actor id: its unsigned LEB128, zero padded (filecoin-ffi's toProverID).
std::array<std::uint8_t, 32> prover_id_of(std::uint64_t miner_id);

// "POREP_SEAL_COMMIT (1)", "100 (the built-in test circuits)", "7 (unknown)".
std::string kind_name(int kind);

}  // namespace cuzk::api
