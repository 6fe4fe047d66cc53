// The checks of SnapDeals partition proofs that need the update's public values (storage-proofs-update
// vanilla.rs EmptySectorUpdate::verify; what vanilla_verify.hpp leaves to the callers that hold them):
//   - comm_r_old == Poseidon2(comm_c, root_r_old) and comm_r_new == Poseidon2(comm_c, root_r_new), the roots
//     those of challenge 0's openings (the circuit's root_r_old / root_r_new);
//   - partition k's challenges are exactly partition_challenges(shape, comm_r_new, k), in order: each
//     challenge's three openings open that node;
//   - every proof_d_new's root is comm_d_new;
//   - at every challenged node the encoding holds: leaf_r_new == leaf_r_old + leaf_d_new * rho(phi, high),
//     phi = phi(comm_d_new, comm_r_old), high = the node's top h bits.
// Together with verify_update_proofs (the openings hash to their roots, the apex tree, one set of roots) a
// proof that passes both gives a satisfied circuit for (comm_r_old, comm_d_new, comm_r_new, h).
//
// Cost per partition: its challenge digests (ceil(challenges / challenges_per_digest) gen-randomness
// Poseidons), two Poseidon2 and one rho per challenge: ~100 hashes at 32 GiB, well under the Merkle checks.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "common/ff/bls12_381.hpp"
#include "common/update/update_shape.hpp"
#include "common/update/vanilla_proof.hpp"

namespace cuzk::update {

// The public values of one update, as the circuit's inputs take them (and h, which picks h_select).
struct update_commitments {
    ff::fr_t comm_r_old, comm_d_new, comm_r_new;
    unsigned h = 0;
};

// Partition |k| of an update of |shape|. Throws cuzk::input_error naming |source|, the partition and, where it
// is one challenge's fault, the challenge: an h the shape does not allow, a challenge count other than the
// shape's, a leaf or root that is not a canonical field element, or any check above that fails.
void check_partition_encoding(const partition_proof& proof, const update_shape& shape, unsigned k,
                              const update_commitments& pub, std::string_view source = "SnapDeals vanilla proof");

// Every partition, partition k at position k, exactly shape.partition_count of them.
void check_update_encoding(std::span<const partition_proof> partitions, const update_shape& shape,
                           const update_commitments& pub, std::string_view source = "SnapDeals vanilla proof");

}  // namespace cuzk::update
