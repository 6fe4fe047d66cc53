// Vanilla PoSt proofs of random replicas, for tests, benchmarks and the built-in circuit "post:<name>[@seed]":
// a tree R over random leaves, a random comm_c, comm_r = Poseidon2(comm_c, comm_r_last), and the inclusion
// proofs of the leaves the registered proof challenges for a random randomness. No sealing: PoSt sees a
// replica only through tree R, comm_c and comm_r, so these are valid witnesses. Deterministic in
// (registered proof, seed text, sector count).
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "common/merkle/merkle_tree.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/post/challenges.hpp"
#include "common/post/post_circuit.hpp"
#include "common/post/vanilla_proof.hpp"

namespace cuzk::post {

// Largest tree R built in memory: 8 MiB sectors (2^18 leaves, 37,449 Poseidon hashes).
inline constexpr uint64_t MAX_SAMPLE_NODES = uint64_t(1) << 18;

struct sample_replica {
    merkle::merkle_tree tree_r;
    porep::tree_shape shape;
    ff::fr_t comm_c, comm_r;
};

sample_replica make_sample_replica(uint64_t nodes, const porep::tree_shape& shape, std::mt19937_64& rng);

// Leaf |leaf|'s inclusion proof in |tree| (of |shape|) as the vanilla proofs encode it: a Single proof for a
// base-only tree, Sub with one sub level, Top with a sub and a top level.
merkle_proof tree_r_proof(const merkle::merkle_tree& tree, const porep::tree_shape& shape, uint64_t leaf);

// The vanilla proof of sector |sector_id| opening |leaves| (one SectorProof).
fallback_sector_proof vanilla_proof_of(const sample_replica& replica, uint64_t sector_id,
                                       std::span<const uint64_t> leaves);

struct sample_post {
    const registered_post_proof* proof = nullptr;
    bytes32 randomness{};                        // a canonical field element (byte 31 masked as Curio does)
    std::vector<fallback_sector_proof> vanilla;  // ascending sector ids

    // The partition circuit with its witness and public inputs.
    post_partition_circuit circuit() const;
};

// |sectors| random sectors (Window: 1..sector_count; Winning: 1) and their vanilla proofs. Throws
// std::invalid_argument for sizes above MAX_SAMPLE_NODES or a sector count the proof does not take.
sample_post make_sample_post(const registered_post_proof& proof, std::string_view seed_text, unsigned sectors);

}  // namespace cuzk::post
