#include "common/post/sparse_tree_r.hpp"

#include <set>
#include <stdexcept>
#include <string>

namespace cuzk::post {

sparse_tree_r::sparse_tree_r(const vanilla_shape& shape, std::span<const uint64_t> leaves, std::mt19937_64& rng) {
    arities_.assign(shape.base_levels, shape.base_arity);
    if (shape.sub_arity) arities_.push_back(shape.sub_arity);
    if (shape.top_arity) arities_.push_back(shape.top_arity);
    levels_.resize(arities_.size() + 1);
    for (uint64_t leaf : leaves) {
        if (leaf >= shape.leaves)
            throw std::invalid_argument("sparse tree R: leaf " + std::to_string(leaf) + " of " +
                                        std::to_string(shape.leaves));
        levels_[0].try_emplace(leaf, ff::fr_t::random(rng));
    }
    for (size_t l = 0; l < arities_.size(); ++l) {
        const uint64_t a = arities_[l];
        std::set<uint64_t> parents;
        for (const auto& [index, value] : levels_[l]) parents.insert(index / a);
        std::vector<ff::fr_t> children(a);
        for (uint64_t p : parents) {
            // Siblings off the opened paths are random, and kept: every opening through p sees the same ones.
            for (uint64_t j = 0; j < a; ++j)
                children[j] = levels_[l].try_emplace(p * a + j, ff::fr_t::random(rng)).first->second;
            levels_[l + 1][p] = merkle::hash_node(merkle::hasher::poseidon, children);
        }
    }
    if (levels_.back().size() != 1) throw std::logic_error("sparse tree R: the levels do not meet in one root");
    root_ = levels_.back().begin()->second;
}

std::vector<merkle::path_level> sparse_tree_r::proof(uint64_t index) const {
    (void)leaf(index);  // one of ours
    std::vector<merkle::path_level> out(arities_.size());
    for (size_t l = 0; l < arities_.size(); ++l) {
        const uint64_t a = arities_[l], first = index / a * a;
        out[l].index = uint32_t(index % a);
        for (uint64_t j = 0; j < a; ++j)
            if (first + j != index) out[l].siblings.push_back(levels_[l].at(first + j));
        index /= a;
    }
    return out;
}

}  // namespace cuzk::post
