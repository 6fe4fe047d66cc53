// A synthetic SnapDeals update of any size, for timing at 32 and 64 GiB without a sealed sector: its vanilla
// proofs decode, verify (vanilla_verify.hpp) and hold the encoding at every challenged node
// (vanilla_encoding.hpp), so they are a valid witness and the circuit is satisfied.
//
// Why not PoSt's sparse tree R (random leaves on the opened paths, random siblings off them): the challenges
// come from comm_r_new = Poseidon2(comm_c, root_r_new), and root_r_new hashes the very leaves those challenges
// open (label_r_new = label_r_old + data * rho). A tree that materializes only the challenged paths needs the
// challenges before its root and the root before the challenges; with random siblings the encoding could only
// be made to hold by chance. So the trees here are whole but held compressed: the sector is cut into the 2^h
// runs of nodes that share their top h bits (one rho each), and inside run r every node's old label and new
// data repeat with a short |period| (64 nodes) of random values drawn for that run. Then the new labels repeat
// too, every tree node whose subtree lies inside a run repeats with the leaves (or is one value for the run),
// and only the nodes above the runs are all distinct: each tree costs about 2^h x (period / arity + levels)
// hashes (32 GiB, h = 10: ~14,000 Poseidon hashes per tree R, ~80,000 SHA256 for tree D; about 2 s on one
// core). The witness differs from a real sector's in that values repeat (the openings of one run share their
// siblings above the period's levels); its shape and sizes are the real ones.
//
// Deterministic in (sector size, seed text, h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/merkle/merkle_tree.hpp"
#include "common/update/sample_update.hpp"

namespace cuzk::update {

// Nodes per run that repeat (at most the run).
inline constexpr uint64_t SYNTHETIC_PERIOD = 64;

// A Merkle tree over |leaves| leaves whose run r (leaves [r * run, (r + 1) * run)) repeats the |period| values
// pattern[r * period ...]: leaf i = pattern[(i / run) * period + i % period]. Every node is its tree's value:
// roots and openings are those of merkle_tree over the expanded leaves.
class periodic_tree {
public:
    // |arities| from the leaves up, their product |leaves|; |run| and |period| powers of two with
    // period <= run <= leaves; |pattern| of leaves / run * period values. Throws std::invalid_argument otherwise.
    periodic_tree(merkle::hasher h, std::vector<unsigned> arities, uint64_t leaves, uint64_t run, uint64_t period,
                  std::vector<ff::fr_t> pattern);

    const ff::fr_t& root() const { return levels_.back().values[0]; }
    // Node |index| of level |level| (0: the leaves).
    const ff::fr_t& node(unsigned level, uint64_t index) const;
    const ff::fr_t& leaf(uint64_t index) const { return node(0, index); }
    // The opening of leaf |index|, level by level from the leaf up, as merkle_tree::proof gives it.
    std::vector<merkle::path_level> proof(uint64_t index) const;

private:
    // A level's nodes of |size| leaves each: inside a run (size <= run) |per_run| values per run, node i being
    // values[(i / (run / size)) * per_run + i % per_run]; above the runs every node (per_run = 0).
    struct level {
        uint64_t size = 1, per_run = 0;
        std::vector<ff::fr_t> values;
    };

    const ff::fr_t& node_in(const level& l, uint64_t index) const;

    std::vector<unsigned> arities_;
    uint64_t leaves_ = 0, run_ = 0;
    std::vector<level> levels_;
};

// The synthetic update of a sector of |nodes| nodes (any size update_shape_of knows) with the given h or the
// shape's h_default(). Throws cuzk::input_error for an unknown size or an h the size does not allow.
sample_update make_synthetic_update(uint64_t nodes, std::string_view seed_text, std::optional<unsigned> h = {});

}  // namespace cuzk::update
