// The vanilla proofs of fallback PoSt as Curio sends them (filecoin-proofs' FallbackPoStSectorProof, one
// bincode string per sector; the encoding is vanilla_bincode.hpp): per sector its comm_r, comm_c and
// comm_r_last and the inclusion proofs in tree R of its challenged leaves. A WindowPoSt sector has one
// sector_proof of 10 inclusion proofs; a WinningPoSt sector one of 66, which the circuit takes as 66 slots of one
// (unroll_winning).
#pragma once

#include <cstdint>
#include <vector>

#include "common/c1/seal_commit_phase1.hpp"

namespace cuzk::post {

using c1::domain_t;
using c1::merkle_proof;

struct sector_proof {
    std::vector<merkle_proof> inclusion_proofs;  // one per challenged leaf, in challenge order
    domain_t comm_c{};
    domain_t comm_r_last{};

    bool operator==(const sector_proof&) const = default;
};

struct fallback_sector_proof {
    std::uint64_t sector_id = 0;  // the sector number
    domain_t comm_r{};
    std::vector<sector_proof> sectors;  // bincode's vanilla_proof.sectors: one entry

    bool operator==(const fallback_sector_proof&) const = default;
};

}  // namespace cuzk::post
