// Native checks of SnapDeals partition proofs: what storage-proofs-update's EmptySectorUpdate::verify checks
// that needs neither the public inputs nor the challenge generator, so that a proof whose circuit could not be
// satisfied is refused naming its partition and challenge instead of failing a Groth16 proof later:
//   - every opening hashes from its leaf up its path to its root (tree R: Poseidon of each level's arity;
//     tree D: SHA256 trimmed to 254 bits);
//   - within a partition all proof_r_old roots are one root (the circuit's root_r_old is challenge 0's), all
//     proof_r_new roots one, all proof_d_new roots one (comm_d_new);
//   - the three openings of a challenge open the same node, and it lies in the partition's 1/partitions of the
//     sector (the circuit's challenge puts the partition in its top bits);
//   - every proof_d_new passes through the apex leaf its position selects and shares challenge 0's siblings
//     in the partition levels, and the apex tree of the apex leaves, up those levels, is comm_d_new (how the
//     circuit walks tree D: the challenge's own siblings to the apex leaf, then the apex tree and one
//     partition path for all challenges);
//   - across partitions: one comm_c, one root of each tree.
// Left to the callers that hold them: the challenges themselves (challenge generation), the encoding
// label_r_new = label_r_old + label_d_new * rho, and comm_r_old / comm_r_new = Poseidon(comm_c, root).
//
// Cost: per challenge one Poseidon per tree R level for each of the two trees (2 x 10 of arity 8 at 32 GiB,
// ~41 us each on one core of the 2-core development machine) and one SHA256 per tree D level: ~70 ms per
// 32 GiB partition, ~1.1 s for the 16 on one core.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "common/update/vanilla_proof.hpp"
#include "common/update/vanilla_shape.hpp"

namespace cuzk::update {

// What all the partitions of one update share, taken from challenge 0 of a checked proof.
struct update_roots {
    domain_t comm_c{};
    domain_t root_r_old{};  // comm_r_last of the sector key's tree R
    domain_t root_r_new{};  // comm_r_last of the updated replica's tree R
    domain_t comm_d_new{};  // the root of the new data's tree D

    bool operator==(const update_roots&) const = default;
};

// Checks the shape first (check_partition_shape). Throws cuzk::input_error naming |source|, the partition and,
// where it is one challenge's fault, the challenge and the opening.
update_roots verify_partition_proof(const partition_proof& proof, const update_vanilla_shape& shape,
                                    uint64_t partition, std::string_view source = "SnapDeals vanilla proof");

// Every partition, partition k at position k, exactly shape.partitions of them, and their shared roots.
update_roots verify_update_proofs(std::span<const partition_proof> partitions, const update_vanilla_shape& shape,
                                  std::string_view source = "SnapDeals vanilla proof");

}  // namespace cuzk::update
