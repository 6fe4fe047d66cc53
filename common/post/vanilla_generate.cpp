#include "common/post/vanilla_generate.hpp"

#include <stdexcept>
#include <string>

#include "common/poseidon/poseidon.hpp"

namespace cuzk::post {

namespace {

c1::domain_t bytes_of(const ff::fr_t& x) {
    c1::domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

// Places tree R's levels (leaf upward) into the base, sub and top paths of |shape|'s proof kind.
c1::merkle_proof proof_of(const vanilla_shape& shape, const ff::fr_t& leaf, const ff::fr_t& root,
                          const std::vector<merkle::path_level>& levels) {
    const size_t expected = shape.base_levels + (shape.sub_arity ? 1 : 0) + (shape.top_arity ? 1 : 0);
    if (levels.size() != expected)
        throw std::invalid_argument("vanilla proof: tree R has " + std::to_string(levels.size()) +
                                    " levels, the shape " + std::to_string(expected));
    c1::merkle_proof p;
    p.kind = shape.kind();
    p.root = bytes_of(root);
    p.leaf = bytes_of(leaf);
    for (size_t l = 0; l < levels.size(); ++l) {
        c1::path_element e;
        for (const ff::fr_t& s : levels[l].siblings) e.hashes.push_back(bytes_of(s));
        e.index = levels[l].index;
        auto& part = l < shape.base_levels ? p.base_path : l == shape.base_levels && shape.sub_arity ? p.sub_path
                                                                                                  : p.top_path;
        part.push_back(std::move(e));
    }
    return p;
}

}  // namespace

fallback_sector_proof make_sector_proof(const porep::sealed_sector& sector, const vanilla_shape& shape,
                                        uint64_t sector_id, std::span<const uint64_t> challenged_leaves) {
    fallback_sector_proof out;
    out.sector_id = sector_id;
    out.comm_r = bytes_of(sector.comm_r);
    sector_proof& s = out.sectors.emplace_back();
    s.comm_c = bytes_of(sector.comm_c);
    s.comm_r_last = bytes_of(sector.comm_r_last);
    for (uint64_t leaf : challenged_leaves)
        s.inclusion_proofs.push_back(
            proof_of(shape, sector.tree_r.leaf(leaf), sector.tree_r.root(), sector.tree_r.proof(leaf)));
    return out;
}

fallback_sector_proof make_synthetic_sector_proof(const vanilla_shape& shape, uint64_t sector_id,
                                                  std::span<const uint64_t> challenged_leaves,
                                                  const sparse_tree_r& tree, const ff::fr_t& comm_c) {
    fallback_sector_proof out;
    out.sector_id = sector_id;
    out.comm_r = bytes_of(poseidon::hash2(comm_c, tree.root()));
    sector_proof& s = out.sectors.emplace_back();
    s.comm_c = bytes_of(comm_c);
    s.comm_r_last = bytes_of(tree.root());
    for (uint64_t leaf : challenged_leaves)
        s.inclusion_proofs.push_back(proof_of(shape, tree.leaf(leaf), tree.root(), tree.proof(leaf)));
    return out;
}

fallback_sector_proof make_synthetic_sector_proof(const vanilla_shape& shape, uint64_t sector_id,
                                                  std::span<const uint64_t> challenged_leaves, std::mt19937_64& rng) {
    const sparse_tree_r tree(shape, challenged_leaves, rng);
    return make_synthetic_sector_proof(shape, sector_id, challenged_leaves, tree, ff::fr_t::random(rng));
}

}  // namespace cuzk::post
