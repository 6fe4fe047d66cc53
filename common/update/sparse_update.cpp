#include "common/update/sparse_update.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "common/poseidon/poseidon.hpp"
#include "common/update/randomness_hash.hpp"
#include "common/update/vanilla_shape.hpp"

namespace cuzk::update {

periodic_tree::periodic_tree(merkle::hasher h, std::vector<unsigned> arities, uint64_t leaves, uint64_t run,
                             uint64_t period, std::vector<ff::fr_t> pattern)
    : arities_(std::move(arities)), leaves_(leaves), run_(run) {
    uint64_t product = 1;
    for (unsigned a : arities_) product *= a;
    if (product != leaves || !std::has_single_bit(leaves) || !std::has_single_bit(run) ||
        !std::has_single_bit(period) || period > run || run > leaves || pattern.size() != leaves / run * period)
        throw std::invalid_argument(fmt::format("periodic tree: {} leaves (arities give {}), runs of {}, period {}, "
                                                "{} pattern values",
                                                leaves, product, run, period, pattern.size()));
    levels_.push_back({1, period, std::move(pattern)});
    std::vector<ff::fr_t> children;
    for (unsigned a : arities_) {
        const level& below = levels_.back();
        level up;
        up.size = below.size * a;
        // Inside a run a node repeats with period / size of them, or is one value once its subtree holds whole
        // periods; above the runs each node is its own.
        up.per_run = up.size <= run_ ? std::max<uint64_t>(1, period / up.size) : 0;
        const uint64_t count = up.per_run ? leaves_ / run_ * up.per_run : leaves_ / up.size;
        const uint64_t nodes_per_run = run_ / up.size;  // meaningful when per_run
        up.values.resize(count);
        children.resize(a);
        for (uint64_t e = 0; e < count; ++e) {
            // The first node this entry stands for.
            const uint64_t index = up.per_run ? e / up.per_run * nodes_per_run + e % up.per_run : e;
            for (unsigned j = 0; j < a; ++j) children[j] = node_in(below, index * a + j);
            up.values[e] = merkle::hash_node(h, children);
        }
        levels_.push_back(std::move(up));
    }
}

const ff::fr_t& periodic_tree::node_in(const level& l, uint64_t index) const {
    if (!l.per_run) return l.values.at(index);
    const uint64_t nodes_per_run = run_ / l.size;
    return l.values.at(index / nodes_per_run * l.per_run + index % l.per_run);
}

const ff::fr_t& periodic_tree::node(unsigned level_index, uint64_t index) const {
    const level& l = levels_.at(level_index);
    if (index >= leaves_ / l.size)
        throw std::out_of_range(fmt::format("periodic tree: node {} of level {} ({} nodes)", index, level_index,
                                            leaves_ / l.size));
    return node_in(l, index);
}

std::vector<merkle::path_level> periodic_tree::proof(uint64_t index) const {
    if (index >= leaves_)
        throw std::out_of_range(fmt::format("periodic tree: leaf {} of {}", index, leaves_));
    std::vector<merkle::path_level> out(arities_.size());
    for (size_t l = 0; l < arities_.size(); ++l) {
        const uint64_t a = arities_[l], first = index / a * a;
        out[l].index = uint32_t(index % a);
        for (uint64_t j = 0; j < a; ++j)
            if (first + j != index) out[l].siblings.push_back(node_in(levels_[l], first + j));
        index /= a;
    }
    return out;
}

namespace {

tree_opener opener_of(const periodic_tree& tree) {
    return [&tree](uint64_t node) { return tree_opening{tree.leaf(node), tree.root(), tree.proof(node)}; };
}

std::vector<unsigned> arities_of(const bincode::merkle_shape& s) {
    std::vector<unsigned> out(s.base_levels, s.base_arity);
    if (s.sub_arity) out.push_back(s.sub_arity);
    if (s.top_arity) out.push_back(s.top_arity);
    return out;
}

}  // namespace

sample_update make_synthetic_update(uint64_t nodes, std::string_view seed_text, std::optional<unsigned> h_given) {
    const update_shape shape = update_shape_of(nodes);
    const update_vanilla_shape vshape = update_vanilla_shape_of(nodes);
    sample_update s;
    s.nodes = nodes;
    s.h = sample_h(shape, h_given);
    std::mt19937_64 rng = sample_rng(seed_text);

    // Run r holds the nodes whose top h bits are r: rho(phi, r) is one value over it.
    const uint64_t run = nodes >> s.h, runs = uint64_t(1) << s.h;
    const uint64_t period = std::min(SYNTHETIC_PERIOD, run);
    std::vector<ff::fr_t> label_r_old(runs * period), data(runs * period);
    for (ff::fr_t& x : label_r_old) x = ff::fr_t::random(rng);
    for (ff::fr_t& x : data) x = ff::fr_t::random(rng);
    s.comm_c = ff::fr_t::random(rng);

    const std::vector<unsigned> r_arities = arities_of(vshape.tree_r);
    const periodic_tree tree_r_old(merkle::hasher::poseidon, r_arities, nodes, run, period, label_r_old);
    const periodic_tree tree_d(merkle::hasher::sha256, arities_of(vshape.tree_d), nodes, run, period, data);
    s.root_r_old = tree_r_old.root();
    s.comm_r_old = poseidon::hash2(s.comm_c, s.root_r_old);
    s.comm_d_new = tree_d.root();

    const ff::fr_t phi_value = phi(s.comm_d_new, s.comm_r_old);
    std::vector<ff::fr_t> label_r_new(runs * period);
    for (uint64_t r = 0; r < runs; ++r) {
        const ff::fr_t rho_r = rho(phi_value, r);
        for (uint64_t i = r * period; i < (r + 1) * period; ++i) label_r_new[i] = label_r_old[i] + data[i] * rho_r;
    }
    const periodic_tree tree_r_new(merkle::hasher::poseidon, r_arities, nodes, run, period, std::move(label_r_new));
    s.root_r_new = tree_r_new.root();
    s.comm_r_new = poseidon::hash2(s.comm_c, s.root_r_new);

    for (unsigned k = 0; k < shape.partition_count; ++k)
        s.partitions.push_back(make_partition_proof(vshape, k, s.comm_c,
                                                    partition_challenges(shape, s.comm_r_new, k),
                                                    opener_of(tree_r_old), opener_of(tree_d), opener_of(tree_r_new)));
    return s;
}

}  // namespace cuzk::update
