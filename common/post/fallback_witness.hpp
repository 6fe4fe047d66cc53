// Between the vanilla proofs Curio sends (one FallbackPoStSectorProof per sector, vanilla_proof.hpp) and the
// circuit of one partition, as filecoin-proofs' single_partition_vanilla_proofs and FallbackPoStCompound::circuit
// do it:
//   Window: each sector's one SectorProof of challenge_count inclusion proofs is one slot; a partition of fewer
//     sectors than slots repeats the last sector's proof;
//   Winning: the one sector's SectorProof of 66 inclusion proofs is unrolled into 66 slots of one.
// A slot's comm_r is the vanilla proof's (the public sector's), comm_c and comm_r_last its SectorProof's, each
// challenge's leaf and path its inclusion proof's.
#pragma once

#include <span>
#include <vector>

#include "common/post/fallback_circuit.hpp"
#include "common/post/public_inputs.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/post/vanilla_proof.hpp"

namespace cuzk::post {

// The public sectors (id, comm_r) of the vanilla proofs, in their order. Throws cuzk::input_error naming the
// sector whose comm_r is not a field element.
std::vector<public_sector> public_sectors_of(std::span<const fallback_sector_proof> proofs);

// The witness of a partition proved from |proofs| (Window: 1..sector_count sectors in ascending, unique sector
// order; Winning: exactly one). Throws cuzk::input_error naming the sector (number and position) and the
// challenge of any count, path shape, index or value that does not fit the registered proof.
fallback_witness witness_of(const registered_post_proof& proof, std::span<const fallback_sector_proof> proofs);

// The inclusion path of |p| as the circuit walks it (base levels, then sub and top). Throws cuzk::input_error
// prefixed with |where| when the proof's kind, path lengths, sibling counts or indices are not tree R's of
// |proof|, or a value is not a field element.
std::vector<merkle::path_level> tree_r_path_of(const registered_post_proof& proof, const merkle_proof& p,
                                               const std::string& where);

}  // namespace cuzk::post
