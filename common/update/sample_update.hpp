// SnapDeals updates of random sectors, for tests and `cuzk seal-test --update`: the vanilla proofs
// filecoin-ffi's GenerateUpdateVanillaProofs would make, without a sealed sector. A SnapDeals proof sees the old
// replica only through tree R old, comm_c and comm_r_old, so random tree R leaves (label_r_old) stand in for a
// sealed replica and the proofs are valid witnesses:
//   label_r_old   random field elements (tree R old), comm_c random, comm_r_old = Poseidon2(comm_c, root_r_old)
//   data          random field elements: the leaves of tree D (binary SHA256, trimmed to 254 bits, as PoRep's
//                 comm_d); comm_d_new = its root
//   label_r_new   label_r_old + data * rho(phi, challenge_high(node, h)), phi = phi(comm_d_new, comm_r_old);
//                 tree R new over them, comm_r_new = Poseidon2(comm_c, root_r_new)
//   partition k   comm_c, tree D's apex_leaf_count nodes at the apex level over partition k's range, and per
//                 challenge of partition_challenges(shape, comm_r_new, k) its openings in tree R old, tree D and
//                 tree R new (vanilla.rs PartitionProof).
// Deterministic in (sector size, seed text, h). Whole trees in memory: up to 8 MiB (2^18 nodes: ~75,000
// Poseidon hashes, a few seconds on one core); larger sizes are synthetic (sparse_update.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/merkle/merkle_tree.hpp"
#include "common/update/update_shape.hpp"
#include "common/update/vanilla_proof.hpp"
#include "common/update/vanilla_shape.hpp"

namespace cuzk::update {

// Largest sector whose trees make_sample_update builds whole: 8 MiB.
inline constexpr uint64_t MAX_SAMPLE_NODES = uint64_t(1) << 18;

// One update: its public values, the values the circuit takes privately, and the vanilla proofs.
struct sample_update {
    uint64_t nodes = 0;  // sector size / 32
    unsigned h = 0;      // one of the shape's hs
    ff::fr_t comm_c, root_r_old, comm_r_old, comm_d_new, root_r_new, comm_r_new;
    std::vector<partition_proof> partitions;  // partition k at position k
};

// A random update of a sector of |nodes| nodes (up to MAX_SAMPLE_NODES; a size update_shape_of knows, test
// sizes included) with the given h, or the shape's h_default(). Throws std::invalid_argument above
// MAX_SAMPLE_NODES and cuzk::input_error for an unknown size or an h the size does not allow.
sample_update make_sample_update(uint64_t nodes, std::string_view seed_text, std::optional<unsigned> h = {});

// ---- shared with the synthetic update ------------------------------------------------------------------

// The generator of a sample: seeded with the SHA256 of |seed_text|.
std::mt19937_64 sample_rng(std::string_view seed_text);

// One node of one tree: its value, the tree's root and the path from the node up, as merkle_tree::proof gives it.
struct tree_opening {
    ff::fr_t leaf, root;
    std::vector<merkle::path_level> path;
};
using tree_opener = std::function<tree_opening(uint64_t node)>;

// Partition |k|'s proof of the nodes |challenges| (partition_challenges of comm_r_new), from the three trees'
// openings. The apex leaves are hashed from tree D openings of the first node under each.
partition_proof make_partition_proof(const update_vanilla_shape& shape, unsigned k, const ff::fr_t& comm_c,
                                     std::span<const uint64_t> challenges, const tree_opener& r_old,
                                     const tree_opener& d_new, const tree_opener& r_new);

// |h| checked against |shape| (cuzk::input_error naming the allowed values), or the shape's default.
unsigned sample_h(const update_shape& shape, std::optional<unsigned> h);

}  // namespace cuzk::update
