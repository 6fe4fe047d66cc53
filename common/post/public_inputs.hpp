// The public inputs of a fallback PoSt partition, computed as a verifier does (storage-proofs-post fallback
// compound.rs / circuit.rs generate_public_inputs): for each sector slot of partition k, its comm_r, then the
// index of each challenged leaf (the packed path bits of its inclusion proof, one field element). A partition
// with fewer sectors than slots repeats the last sector's inputs. ONE is not included.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/post/challenges.hpp"
#include "common/post/registered_post_proof.hpp"

namespace cuzk::post {

struct public_sector {
    uint64_t id = 0;  // the sector number
    ff::fr_t comm_r;

    bool operator==(const public_sector&) const = default;
};

// The circuit's public sectors from those a verifier is given: Window takes them as they are (ascending,
// unique, as verify_window_post's BTreeMap orders them); Winning's one sector is repeated to its 66 slots
// (winning_post.rs). Throws cuzk::input_error on a Winning list of other than one sector or an empty list.
std::vector<public_sector> circuit_public_sectors(const registered_post_proof& proof,
                                                  std::span<const public_sector> sectors);

// Partition |partition| of |sectors| (circuit_public_sectors' output): proof.public_inputs_per_partition()
// values. |version| overrides the registered proof's API version (the challenge-index rule). Throws
// std::invalid_argument for a partition beyond the sectors.
std::vector<ff::fr_t> generate_public_inputs(const registered_post_proof& proof, graph::api_version version,
                                             const bytes32& randomness, std::span<const public_sector> sectors,
                                             unsigned partition);
std::vector<ff::fr_t> generate_public_inputs(const registered_post_proof& proof, const bytes32& randomness,
                                             std::span<const public_sector> sectors, unsigned partition);

}  // namespace cuzk::post
