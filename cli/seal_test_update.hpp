// `cuzk seal-test --registered-proof StackedDrgUpdate<size>V1 --update --out DIR [--seed TEXT] [--h H]
// [--synthetic]`: the vanilla proofs of a SnapDeals update of a random sector, as Curio sends them to be proven.
// Up to 8 MiB the trees are built whole (common/update/sample_update.hpp); --synthetic makes them of any size,
// 32 and 64 GiB included, from periodic random data (common/update/sparse_update.hpp; a valid witness too).
// Deterministic in (registered proof, seed text, h); the seed text is --seed, else --rng ("cuzk").
//
// Files written:
//   DIR/update-partition-<k>.bin   for k = 0 .. partitions - 1: one bincode PartitionProof each, exactly the
//                                  bytes filecoin-ffi's GenerateUpdateVanillaProofs gives for partition k
//                                  (common/update/vanilla_bincode.hpp)
//   DIR/update.json                { "registered_proof": "StackedDrgUpdate2KiBV1", "registered_proof_id": 0,
//                                    "abi_name": "RegisteredUpdateProof_StackedDrg2KiBV1", "sector_size": 2048,
//                                    "seed": text, "synthetic": bool, ["note": text,] "h": 1,
//                                    "comm_r_old", "comm_d_new", "comm_r_new": 64 hex digits of the 32 stored
//                                    bytes (the field element's little-endian bytes, as filecoin-ffi passes
//                                    them), "partitions": n, "challenges_per_partition": 10,
//                                    "partition_proof_bytes": bytes of each file,
//                                    "partition_proofs": ["update-partition-0.bin", ...] (relative to DIR) }
// update.json is also printed on stdout. Before writing, the proofs are decoded back and checked
// (verify_update_proofs and check_update_encoding).
#pragma once

#include <string>

#include "cli/seal_test.hpp"

namespace cuzk::cli {

// The flags only --update uses; the shared ones (--registered-proof, --out, --seed, --rng, --synthetic) are in
// seal_test_options.
struct seal_test_update_options {
    bool update = false;
    std::string h;  // empty: the sector size's default
};

// Refuses (cuzk::input_error, exit 2) an unknown or non-update registered proof, an h the size does not allow,
// a size above 8 MiB without --synthetic and the PoRep / PoSt flags that --update does not take.
int run_seal_test_update(const seal_test_options& o, const seal_test_update_options& u);

// --h given without --update.
void refuse_update_flags_without_update(const seal_test_update_options& u);

}  // namespace cuzk::cli
