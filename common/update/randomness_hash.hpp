// The randomness of a SnapDeals proof, native: one Poseidon hash over two elements with its own domain tag,
// and what is derived from it (storage-proofs-update constants.rs POSEIDON_CONSTANTS_GEN_RANDOMNESS,
// vanilla.rs phi / rho, challenges.rs):
//   H_GR(a, b)   neptune arity 2, Standard strength, hash type Custom(Arbitrary(1)): the Merkle-tree round
//                constants and MDS (they depend only on arity and strength), domain tag 1 * 2^40 instead of 3
//   phi          H_GR(comm_d_new, comm_r_old), once per proof
//   rho(high)    H_GR(phi, high): the factor the new data of every node whose index has top h bits |high|
//                is multiplied by (label_r_new = label_r_old + label_d_new * rho)
//   challenges   digest_j = H_GR(comm_r_new, k * digests_per_partition + j); each digest's 255 little-endian
//                bits cut into consecutive chunks of random_bits_per_challenge bits (challenges_per_digest
//                per digest, fewer from the last), and partition k's bits put on top of each chunk, so that
//                every challenge of partition k lies in its 1/partition_count of the sector.
#pragma once

#include <cstdint>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/poseidon/constants.hpp"
#include "common/update/update_shape.hpp"

namespace cuzk::update {

// The gen-randomness constants (built once, shared by every thread): for the Poseidon gadget as well.
const poseidon::poseidon_constants& gen_randomness_constants();

// H_GR(a, b).
ff::fr_t gen_randomness_hash(const ff::fr_t& a, const ff::fr_t& b);

ff::fr_t phi(const ff::fr_t& comm_d_new, const ff::fr_t& comm_r_old);
ff::fr_t rho(const ff::fr_t& phi, uint64_t high);

// The top |h| bits of node index |node| of a sector of |shape|: node >> (challenge_bit_len - h).
uint64_t challenge_high(const update_shape& shape, uint64_t node, unsigned h);

// digest_j of partition |k|: H_GR(comm_r_new, k * digests_per_partition + j).
ff::fr_t challenge_digest(const update_shape& shape, const ff::fr_t& comm_r_new, unsigned k, unsigned j);

// The shape.challenge_count node indices partition |k| challenges, in order. Throws std::invalid_argument for
// k >= partition_count.
std::vector<uint64_t> partition_challenges(const update_shape& shape, const ff::fr_t& comm_r_new, unsigned k);

}  // namespace cuzk::update
