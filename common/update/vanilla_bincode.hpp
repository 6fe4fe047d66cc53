// The SnapDeals vanilla proofs Curio sends: one storage-proofs-update PartitionProof per partition in bincode
// 1.x's default encoding (filecoin-ffi GenerateUpdateVanillaProofs; layout in
// shared/reference/filecoin-post-snap.md 3.7, encoding in common/bincode/):
//   PartitionProof { comm_c: [u8; 32], apex_leafs: Vec<[u8; 32]>, challenge_proofs: Vec<ChallengeProof> }
//   ChallengeProof { proof_r_old: MerkleProof (tree R), proof_d_new: MerkleProof (tree D, Single),
//                    proof_r_new: MerkleProof (tree R) }
//
// The decoder is strict: every length must be the one |shape| fixes and is checked before anything is
// allocated, every opening must have its tree's variant, levels, sibling counts and positions below the
// arity, every domain value must be a canonical field element, nothing may follow the proof. Errors
// (cuzk::input_error) name the source, the partition, the challenge, the opening (proof_r_old, proof_d_new,
// proof_r_new), the path and level, the field and its byte offset in that partition's bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/update/vanilla_proof.hpp"
#include "common/update/vanilla_shape.hpp"

namespace cuzk::update {

// |partition| only names the proof in errors (the decoder cannot tell partitions apart; the native check can).
partition_proof decode_partition_proof(std::span<const uint8_t> bytes, const update_vanilla_shape& shape,
                                       uint64_t partition, std::string_view source = "SnapDeals vanilla proof");

// The exact inverse of the decoder; writes whatever |proof| holds (check_partition_shape first to refuse a bad
// shape).
std::vector<uint8_t> encode_partition_proof(const partition_proof& proof);

// A whole update: exactly |shape.partitions| proofs, partition k at position k.
std::vector<partition_proof> decode_update_proofs(std::span<const std::span<const uint8_t>> partitions,
                                                  const update_vanilla_shape& shape,
                                                  std::string_view source = "SnapDeals vanilla proof");

}  // namespace cuzk::update
