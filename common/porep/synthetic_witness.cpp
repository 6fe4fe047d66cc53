#include "common/porep/synthetic_witness.hpp"

#include <random>

namespace cuzk::porep {

namespace {

std::vector<merkle::path_level> random_path(std::mt19937_64& rng, const gadgets::merkle_arities& shape) {
    std::vector<merkle::path_level> path(shape.levels());
    for (size_t l = 0; l < path.size(); ++l) {
        unsigned arity = shape.arity_of_level(l);
        path[l].index = uint32_t(rng() % arity);
        for (unsigned i = 0; i + 1 < arity; ++i) path[l].siblings.push_back(ff::fr_t::random(rng));
    }
    return path;
}

column_opening random_column(std::mt19937_64& rng, const stacked_circuit_shape& shape) {
    column_opening c;
    for (unsigned r = 0; r < shape.layers; ++r) c.rows.push_back(ff::fr_t::random(rng));
    c.path = random_path(rng, shape.tree_c);
    return c;
}

}  // namespace

partition_witness make_synthetic_witness(const stacked_circuit_shape& shape, uint64_t nodes, uint64_t seed) {
    std::mt19937_64 rng(seed);
    partition_witness w;
    w.replica_id = ff::fr_t::random(rng);
    w.comm_d = ff::fr_t::random(rng);
    w.comm_r = ff::fr_t::random(rng);
    w.comm_r_last = ff::fr_t::random(rng);
    w.comm_c = ff::fr_t::random(rng);
    const gadgets::merkle_arities tree_d{2, shape.tree_d_levels, 0, 0};
    for (unsigned i = 0; i < shape.challenges; ++i) {
        challenge_witness c;
        c.challenge = 1 + rng() % (nodes - 1);
        c.data_leaf = ff::fr_t::random(rng);
        c.comm_d_path = random_path(rng, tree_d);
        c.comm_r_last_path = random_path(rng, shape.tree_c);
        c.comm_c_path = random_path(rng, shape.tree_c);
        for (unsigned j = 0; j < shape.drg_degree; ++j) c.drg_parents.push_back(random_column(rng, shape));
        for (unsigned j = 0; j < shape.expansion_degree; ++j) c.exp_parents.push_back(random_column(rng, shape));
        w.challenges.push_back(std::move(c));
    }
    return w;
}

}  // namespace cuzk::porep
