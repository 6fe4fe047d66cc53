#include "common/update/sample_update.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/poseidon/poseidon.hpp"
#include "common/update/randomness_hash.hpp"
#include "common/util/errors.hpp"

namespace cuzk::update {

namespace {

domain_t bytes_of(const ff::fr_t& x) {
    domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

// |o|'s levels split into the base, sub and top paths of |tree|'s proof kind.
merkle_proof proof_of(const bincode::merkle_shape& tree, const tree_opening& o) {
    if (o.path.size() != tree.levels())
        throw std::logic_error(fmt::format("sample update: an opening of {} levels for a tree of {}", o.path.size(),
                                           tree.levels()));
    merkle_proof p;
    p.kind = tree.kind();
    p.root = bytes_of(o.root);
    p.leaf = bytes_of(o.leaf);
    for (size_t l = 0; l < o.path.size(); ++l) {
        c1::path_element e;
        for (const ff::fr_t& s : o.path[l].siblings) e.hashes.push_back(bytes_of(s));
        e.index = o.path[l].index;
        auto& part = l < tree.base_levels ? p.base_path : l == tree.base_levels && tree.sub_arity ? p.sub_path
                                                                                                 : p.top_path;
        part.push_back(std::move(e));
    }
    return p;
}

tree_opener opener_of(const merkle::merkle_tree& tree) {
    return [&tree](uint64_t node) { return tree_opening{tree.leaf(node), tree.root(), tree.proof(node)}; };
}

std::vector<ff::fr_t> random_nodes(uint64_t n, std::mt19937_64& rng) {
    std::vector<ff::fr_t> out(n);
    for (ff::fr_t& x : out) x = ff::fr_t::random(rng);
    return out;
}

}  // namespace

std::mt19937_64 sample_rng(std::string_view seed_text) {
    uint8_t digest[32];
    if (EVP_Digest(seed_text.data(), seed_text.size(), digest, nullptr, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("sample update: OpenSSL SHA256 failed");
    std::seed_seq seq(digest, digest + 32);
    return std::mt19937_64(seq);
}

unsigned sample_h(const update_shape& shape, std::optional<unsigned> h) {
    if (!h) return shape.h_default();
    if (std::find(shape.hs.begin(), shape.hs.end(), *h) != shape.hs.end()) return *h;
    std::string allowed;  // hs repeats 1 six times up to 2^10 nodes: each value once
    for (size_t i = 0; i < shape.hs.size(); ++i)
        if (std::find(shape.hs.begin(), shape.hs.begin() + i, shape.hs[i]) == shape.hs.begin() + i)
            allowed += (allowed.empty() ? "" : ", ") + std::to_string(shape.hs[i]);
    throw input_error(fmt::format("h = {} is not allowed for a SnapDeals sector of {} nodes; allowed: {} (default {})",
                                  *h, shape.nodes, allowed, shape.h_default()));
}

partition_proof make_partition_proof(const update_vanilla_shape& shape, unsigned k, const ff::fr_t& comm_c,
                                     std::span<const uint64_t> challenges, const tree_opener& r_old,
                                     const tree_opener& d_new, const tree_opener& r_new) {
    partition_proof p;
    p.comm_c = bytes_of(comm_c);
    // Apex leaf i of partition k is the tree D node over nodes [(k * apex_leaves + i) << height, ...): the first
    // |height| levels of the opening of its first node end in it.
    const unsigned height = shape.apex_leaf_height();
    for (uint64_t i = 0; i < shape.apex_leaves; ++i) {
        const tree_opening o = d_new((uint64_t(k) * shape.apex_leaves + i) << height);
        p.apex_leafs.push_back(bytes_of(
            merkle::root_from_proof(merkle::hasher::sha256, o.leaf, std::span(o.path).first(height))));
    }
    for (uint64_t node : challenges)
        p.challenge_proofs.push_back({proof_of(shape.tree_r, r_old(node)), proof_of(shape.tree_d, d_new(node)),
                                      proof_of(shape.tree_r, r_new(node))});
    return p;
}

sample_update make_sample_update(uint64_t nodes, std::string_view seed_text, std::optional<unsigned> h_given) {
    const update_shape shape = update_shape_of(nodes);
    const update_vanilla_shape vshape = update_vanilla_shape_of(nodes);
    if (nodes > MAX_SAMPLE_NODES)
        throw std::invalid_argument(fmt::format("sample update: a sector of {} nodes; whole trees are built up to {} "
                                                "nodes (8 MiB), larger sizes only synthetically",
                                                nodes, MAX_SAMPLE_NODES));
    sample_update s;
    s.nodes = nodes;
    s.h = sample_h(shape, h_given);
    std::mt19937_64 rng = sample_rng(seed_text);
    const auto& t = vshape.tree_r;

    std::vector<ff::fr_t> label_r_old = random_nodes(nodes, rng);
    std::vector<ff::fr_t> data = random_nodes(nodes, rng);
    s.comm_c = ff::fr_t::random(rng);
    const merkle::merkle_tree tree_r_old =
        merkle::merkle_tree::poseidon(label_r_old, t.base_arity, t.sub_arity, t.top_arity);
    const merkle::merkle_tree tree_d = merkle::merkle_tree::sha256_binary(data);
    s.root_r_old = tree_r_old.root();
    s.comm_r_old = poseidon::hash2(s.comm_c, s.root_r_old);
    s.comm_d_new = tree_d.root();

    // rho depends on a node only through its top h bits: one hash per value of them.
    const ff::fr_t phi_value = phi(s.comm_d_new, s.comm_r_old);
    std::vector<ff::fr_t> rhos(size_t(1) << s.h);
    for (uint64_t high = 0; high < rhos.size(); ++high) rhos[high] = rho(phi_value, high);
    std::vector<ff::fr_t> label_r_new(nodes);
    for (uint64_t i = 0; i < nodes; ++i)
        label_r_new[i] = label_r_old[i] + data[i] * rhos[challenge_high(shape, i, s.h)];
    const merkle::merkle_tree tree_r_new =
        merkle::merkle_tree::poseidon(std::move(label_r_new), t.base_arity, t.sub_arity, t.top_arity);
    s.root_r_new = tree_r_new.root();
    s.comm_r_new = poseidon::hash2(s.comm_c, s.root_r_new);

    for (unsigned k = 0; k < shape.partition_count; ++k)
        s.partitions.push_back(make_partition_proof(vshape, k, s.comm_c,
                                                    partition_challenges(shape, s.comm_r_new, k),
                                                    opener_of(tree_r_old), opener_of(tree_d), opener_of(tree_r_new)));
    return s;
}

}  // namespace cuzk::update
