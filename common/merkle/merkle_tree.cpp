#include "common/merkle/merkle_tree.hpp"

#include <openssl/evp.h>

#include <bit>
#include <stdexcept>
#include <string>

#include "common/poseidon/poseidon.hpp"

namespace cuzk::merkle {

ff::fr_t sha256_node(std::span<const ff::fr_t> children) {
    std::vector<uint8_t> bytes(children.size() * 32);
    for (size_t i = 0; i < children.size(); ++i) children[i].to_bytes_le(bytes.data() + 32 * i);
    uint8_t digest[32];
    if (EVP_Digest(bytes.data(), bytes.size(), digest, nullptr, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("sha256_node: OpenSSL EVP_Digest failed");
    digest[31] &= 0x3F;  // trim_to_fr32: 254 bits, always below r
    ff::fr_t out;
    ff::fr_t::from_bytes_le(digest, out);
    return out;
}

ff::fr_t hash_node(hasher h, std::span<const ff::fr_t> children) {
    return h == hasher::sha256 ? sha256_node(children) : poseidon::hash(children);
}

merkle_tree::merkle_tree(std::vector<ff::fr_t> leaves, hasher h, std::vector<unsigned> arities)
    : arities_(std::move(arities)) {
    uint64_t expected = 1;
    for (unsigned a : arities_) expected *= a;
    if (leaves.size() != expected)
        throw std::invalid_argument("merkle_tree: " + std::to_string(leaves.size()) + " leaves for a shape of " +
                                    std::to_string(expected));
    levels_.push_back(std::move(leaves));
    for (unsigned arity : arities_) {
        const std::vector<ff::fr_t>& below = levels_.back();
        std::vector<ff::fr_t> above(below.size() / arity);
        for (size_t i = 0; i < above.size(); ++i)
            above[i] = hash_node(h, std::span<const ff::fr_t>(below).subspan(i * arity, arity));
        levels_.push_back(std::move(above));
    }
}

merkle_tree merkle_tree::sha256_binary(std::vector<ff::fr_t> leaves) {
    if (!std::has_single_bit(leaves.size()))
        throw std::invalid_argument("sha256 tree: leaf count " + std::to_string(leaves.size()) +
                                    " is not a power of two");
    std::vector<unsigned> arities(std::countr_zero(leaves.size()), 2);
    return merkle_tree(std::move(leaves), hasher::sha256, std::move(arities));
}

merkle_tree merkle_tree::poseidon(std::vector<ff::fr_t> leaves, unsigned base, unsigned sub, unsigned top) {
    uint64_t base_leaves = leaves.size() / (sub ? sub : 1) / (top ? top : 1);
    std::vector<unsigned> arities;
    for (uint64_t n = 1; n < base_leaves; n *= base) arities.push_back(base);
    if (sub) arities.push_back(sub);
    if (top) arities.push_back(top);
    return merkle_tree(std::move(leaves), hasher::poseidon, std::move(arities));
}

std::vector<path_level> merkle_tree::proof(uint64_t leaf_index) const {
    if (leaf_index >= leaves())
        throw std::out_of_range("merkle_tree::proof: leaf " + std::to_string(leaf_index) + " of " +
                                std::to_string(leaves()));
    std::vector<path_level> path;
    uint64_t idx = leaf_index;
    for (size_t l = 0; l < arities_.size(); ++l) {
        unsigned arity = arities_[l];
        uint64_t group = idx / arity;
        path_level level;
        level.index = uint32_t(idx % arity);
        for (unsigned j = 0; j < arity; ++j)
            if (j != level.index) level.siblings.push_back(levels_[l][group * arity + j]);
        path.push_back(std::move(level));
        idx = group;
    }
    return path;
}

ff::fr_t root_from_proof(hasher h, const ff::fr_t& leaf, std::span<const path_level> path) {
    ff::fr_t cur = leaf;
    std::vector<ff::fr_t> children;
    for (const path_level& level : path) {
        children = level.siblings;
        children.insert(children.begin() + level.index, cur);
        cur = hash_node(h, children);
    }
    return cur;
}

}  // namespace cuzk::merkle
