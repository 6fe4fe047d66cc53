// A tree R of any size held sparsely: only the leaves to be opened, their ancestors and the siblings along their
// paths exist, the leaves and every sibling off those paths random. Every opening then hashes to one root, so
// vanilla proofs made from it verify (a PoSt sees a replica only through tree R's openings, comm_c and comm_r):
// the synthetic 32 GiB vanilla proofs of `seal-test --synthetic` pass the service's native check and give a
// satisfiable circuit, for timing at real sizes without a sealed sector. Cost: a few hashes per level per
// opened leaf (66 leaves of a 2^30-leaf tree: ~700 Poseidon hashes).
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <span>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/merkle/merkle_tree.hpp"
#include "common/post/vanilla_shape.hpp"

namespace cuzk::post {

class sparse_tree_r {
public:
    // |leaves| below shape.leaves (repeats allowed); throws std::invalid_argument otherwise.
    sparse_tree_r(const vanilla_shape& shape, std::span<const uint64_t> leaves, std::mt19937_64& rng);

    const ff::fr_t& root() const { return root_; }
    // One of the leaves it was built for (std::out_of_range for another).
    const ff::fr_t& leaf(uint64_t index) const { return levels_.front().at(index); }
    // The opening of such a leaf, level by level from the leaf up, as merkle_tree::proof gives it.
    std::vector<merkle::path_level> proof(uint64_t index) const;

private:
    std::vector<unsigned> arities_;                       // leaf level first: base levels, then sub, then top
    std::vector<std::map<uint64_t, ff::fr_t>> levels_;    // the nodes that exist, per level
    ff::fr_t root_;
};

}  // namespace cuzk::post
