// The vanilla proofs of a SnapDeals update (EmptySectorUpdate) as Curio sends them: one
// storage-proofs-update PartitionProof per partition, in partition order (filecoin-ffi
// GenerateUpdateVanillaProofs; the bincode encoding is vanilla_bincode.hpp). Per partition: comm_c, the
// partition's apex leaves (the row of tree D from which its top levels are built in the circuit) and, per
// challenged node c, its openings in the old replica's tree R, the new data's tree D and the new replica's
// tree R. The circuit takes from them the leaves and the siblings only; the positions come from the challenge.
#pragma once

#include <vector>

#include "common/c1/seal_commit_phase1.hpp"

namespace cuzk::update {

using c1::domain_t;
using c1::merkle_proof;

struct challenge_proof {
    merkle_proof proof_r_old;  // tree R of the sector key (Poseidon, the sector size's arities)
    merkle_proof proof_d_new;  // tree D of the new data (binary SHA256, always a Single proof)
    merkle_proof proof_r_new;  // tree R of the updated replica

    bool operator==(const challenge_proof&) const = default;
};

struct partition_proof {
    domain_t comm_c{};                              // the sector's comm_c, unchanged by the update
    std::vector<domain_t> apex_leafs;               // tree D nodes at the apex height, this partition's run
    std::vector<challenge_proof> challenge_proofs;  // in challenge order

    bool operator==(const partition_proof&) const = default;
};

}  // namespace cuzk::update
