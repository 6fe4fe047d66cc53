// The public inputs of a StackedDRG partition proof, computed as a verifier does
// (rust-fil-proofs StackedCompound::generate_public_inputs), plus the two derivations they rest on:
// the replica id (vanilla params.rs generate_replica_id) and the interactive challenges
// (vanilla challenges.rs derive_porep, the same for API versions 1.0 and 1.1).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/graph/stacked_graph.hpp"
#include "common/porep/registered_proof.hpp"

namespace cuzk::porep {

using bytes32 = std::array<uint8_t, 32>;

// SHA256(prover_id || sector_id u64 BE || ticket || comm_d || porep_id), top two bits of byte 31
// cleared (bytes_into_fr_repr_safe), as a little-endian field element.
ff::fr_t generate_replica_id(const bytes32& prover_id, uint64_t sector_id, const bytes32& ticket,
                             const bytes32& comm_d, const graph::porep_id_t& porep_id);

// Challenge i of partition k: LE(SHA256(replica_id LE bytes || seed || u32 LE (per_partition * k + i)))
// mod (nodes - 1) + 1 (node 0 is never challenged).
std::vector<uint64_t> derive_challenges(uint64_t nodes, unsigned per_partition, const ff::fr_t& replica_id,
                                        const bytes32& seed, unsigned partition);

struct seal_public_inputs;

// The challenges of partition k for |proof|: interactive (derive_challenges) or, for the
// synthetic-PoRep proofs, selected from the synthetic set of (replica_id, comm_r) by the seed.
std::vector<uint64_t> partition_challenges(const registered_proof& proof, const seal_public_inputs& in,
                                           unsigned partition);

struct seal_public_inputs {
    ff::fr_t replica_id;
    ff::fr_t comm_d;
    ff::fr_t comm_r;
    bytes32 seed{};
};

// [replica_id, comm_d, comm_r] then per challenge c of partition k: c (tree D), 6 DRG parents,
// 8 expander parents, c (the challenge), c (tree R), c (tree C). The graph must be the proof's
// (nodes, porep id, API version). ONE is not included.
std::vector<ff::fr_t> generate_public_inputs(const registered_proof& proof, const graph::stacked_graph& graph,
                                             const seal_public_inputs& in, unsigned partition);

// The graph of a registered proof (porep id and API version from the table).
graph::stacked_graph graph_of(const registered_proof& proof);

}  // namespace cuzk::porep
