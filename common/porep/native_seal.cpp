#include "common/porep/native_seal.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>
#include <string>

#include "common/poseidon/poseidon.hpp"

namespace cuzk::porep {

namespace {

constexpr size_t TOTAL_PARENTS = 37;

}  // namespace

// The 37 parents a label hashes: layer 1 repeats the DRG parents, later layers the 14 DRG and
// expander parents (rust-fil-proofs create_label: base parents in the current layer, expander
// parents in the previous one).
std::vector<ff::fr_t> expanded_parent_labels(const graph::stacked_graph& graph, uint64_t node, unsigned layer,
                                             const std::vector<std::vector<ff::fr_t>>& labels) {
    std::array<uint32_t, graph::stacked_degree> parents{};
    graph.parents(node, parents);
    std::vector<ff::fr_t> distinct;
    for (size_t i = 0; i < graph::drg_degree; ++i) distinct.push_back(labels[layer - 1][parents[i]]);
    if (layer > 1)
        for (size_t i = graph::drg_degree; i < graph::stacked_degree; ++i)
            distinct.push_back(labels[layer - 2][parents[i]]);
    std::vector<ff::fr_t> out;
    while (out.size() + distinct.size() <= TOTAL_PARENTS) out.insert(out.end(), distinct.begin(), distinct.end());
    for (size_t i = 0; out.size() < TOTAL_PARENTS; ++i) out.push_back(distinct[i]);
    return out;
}

ff::fr_t create_label(const ff::fr_t& replica_id, uint32_t layer, uint64_t node, std::span<const ff::fr_t> parents) {
    std::vector<uint8_t> msg(64 + (node > 0 ? 32 * parents.size() : 0), 0);
    replica_id.to_bytes_le(msg.data());
    for (int i = 0; i < 4; ++i) msg[32 + i] = uint8_t(layer >> (8 * (3 - i)));
    for (int i = 0; i < 8; ++i) msg[36 + i] = uint8_t(node >> (8 * (7 - i)));
    if (node > 0)
        for (size_t p = 0; p < parents.size(); ++p) parents[p].to_bytes_le(msg.data() + 64 + 32 * p);
    uint8_t digest[32];
    if (EVP_Digest(msg.data(), msg.size(), digest, nullptr, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("create_label: OpenSSL SHA256 failed");
    digest[31] &= 0x3F;
    ff::fr_t out;
    ff::fr_t::from_bytes_le(digest, out);
    return out;
}

std::vector<ff::fr_t> sealed_sector::column(uint64_t node) const {
    std::vector<ff::fr_t> rows;
    for (const auto& layer : labels) rows.push_back(layer.at(node));
    return rows;
}

sealed_sector seal_sector(const graph::stacked_graph& graph, unsigned layers, const tree_shape& tree,
                          const ff::fr_t& replica_id, std::vector<ff::fr_t> data) {
    const uint64_t nodes = graph.nodes();
    if (data.size() != nodes)
        throw std::invalid_argument("seal_sector: " + std::to_string(data.size()) + " data elements for " +
                                    std::to_string(nodes) + " nodes");
    std::vector<std::vector<ff::fr_t>> labels(layers, std::vector<ff::fr_t>(nodes));
    for (unsigned layer = 1; layer <= layers; ++layer)
        for (uint64_t node = 0; node < nodes; ++node)
            labels[layer - 1][node] =
                create_label(replica_id, layer, node, expanded_parent_labels(graph, node, layer, labels));

    std::vector<ff::fr_t> column_hashes(nodes), replica(nodes);
    const auto& column_constants = poseidon::constants_for(layers);
    std::vector<ff::fr_t> col(layers);
    for (uint64_t n = 0; n < nodes; ++n) {
        for (unsigned l = 0; l < layers; ++l) col[l] = labels[l][n];
        column_hashes[n] = poseidon::hash(column_constants, col);
        replica[n] = labels[layers - 1][n] + data[n];  // encode: key + data
    }
    auto tree_d = merkle::merkle_tree::sha256_binary(data);
    auto tree_c = merkle::merkle_tree::poseidon(std::move(column_hashes), tree.base, tree.sub, tree.top);
    auto tree_r = merkle::merkle_tree::poseidon(std::move(replica), tree.base, tree.sub, tree.top);
    sealed_sector s{nodes, layers, replica_id, std::move(data), std::move(labels),
                    std::move(tree_d), std::move(tree_c), std::move(tree_r), {}, {}, {}, {}};
    s.comm_d = s.tree_d.root();
    s.comm_c = s.tree_c.root();
    s.comm_r_last = s.tree_r.root();
    s.comm_r = poseidon::hash2(s.comm_c, s.comm_r_last);
    return s;
}

partition_witness make_partition_witness(const sealed_sector& s, const graph::stacked_graph& graph,
                                         std::span<const uint64_t> challenges) {
    partition_witness w;
    w.replica_id = s.replica_id;
    w.comm_d = s.comm_d;
    w.comm_r = s.comm_r;
    w.comm_r_last = s.comm_r_last;
    w.comm_c = s.comm_c;
    std::array<uint32_t, graph::drg_degree> drg{};
    std::array<uint32_t, graph::expansion_degree> exp{};
    for (uint64_t c : challenges) {
        if (c == 0 || c >= s.nodes)
            throw std::invalid_argument("make_partition_witness: challenge " + std::to_string(c) + " outside [1, " +
                                        std::to_string(s.nodes) + ")");
        challenge_witness cw;
        cw.challenge = c;
        cw.data_leaf = s.data[c];
        cw.comm_d_path = s.tree_d.proof(c);
        cw.comm_r_last_path = s.tree_r.proof(c);
        cw.comm_c_path = s.tree_c.proof(c);
        graph.base_parents(c, drg);
        for (uint32_t p : drg) cw.drg_parents.push_back({s.column(p), s.tree_c.proof(p)});
        graph.expanded_parents(c, exp);
        for (uint32_t p : exp) cw.exp_parents.push_back({s.column(p), s.tree_c.proof(p)});
        w.challenges.push_back(std::move(cw));
    }
    return w;
}

}  // namespace cuzk::porep
