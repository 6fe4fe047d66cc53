// Native Merkle trees as Filecoin builds them, for tests, the test sealer and public-input checks:
// a level-by-level tree whose level l has its own arity (base levels, then the sub and top levels of
// rust-fil-proofs' compound trees: base trees are consecutive runs of leaves, so hashing the whole
// leaf row level by level gives the base roots in order, then sub and top groups of them).
//   sha256: node = SHA256(child_0 LE bytes || child_1 LE bytes ...) with byte 31 &= 0x3F (tree D)
//   poseidon: node = neptune Poseidon of the children (trees C and R)
// SHA256 here is OpenSSL's, independent of the gadget it checks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/ff/bls12_381.hpp"

namespace cuzk::merkle {

enum class hasher { sha256, poseidon };

// One level of an opening: the other children of the node's parent in tree order, and the node's
// position among all children.
struct path_level {
    std::vector<ff::fr_t> siblings;
    uint32_t index = 0;
};

class merkle_tree {
public:
    // |arities|: one per level from the leaves up; the leaf count must be their product.
    merkle_tree(std::vector<ff::fr_t> leaves, hasher h, std::vector<unsigned> arities);

    // Binary SHA256 tree over 2^k leaves.
    static merkle_tree sha256_binary(std::vector<ff::fr_t> leaves);
    // Poseidon tree with base arity, and sub / top arity when non-zero.
    static merkle_tree poseidon(std::vector<ff::fr_t> leaves, unsigned base, unsigned sub, unsigned top);

    const ff::fr_t& root() const { return levels_.back()[0]; }
    size_t leaves() const { return levels_[0].size(); }
    const ff::fr_t& leaf(size_t i) const { return levels_[0].at(i); }
    std::vector<path_level> proof(uint64_t leaf_index) const;

private:
    std::vector<unsigned> arities_;
    std::vector<std::vector<ff::fr_t>> levels_;
};

ff::fr_t hash_node(hasher h, std::span<const ff::fr_t> children);
// SHA256 of the 32-byte little-endian representations, truncated to 254 bits.
ff::fr_t sha256_node(std::span<const ff::fr_t> children);
// Root from a leaf and its opening (what a verifier computes).
ff::fr_t root_from_proof(hasher h, const ff::fr_t& leaf, std::span<const path_level> path);

}  // namespace cuzk::merkle
