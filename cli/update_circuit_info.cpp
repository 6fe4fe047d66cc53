#include "cli/update_circuit_info.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "cli/command.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/update/empty_sector_update_circuit.hpp"
#include "common/update/official_params.hpp"
#include "common/update/public_inputs.hpp"

namespace cuzk::cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::round(s * 1000) / 1000;
}

// Random values of the shape (partition 0, the default h): the time of synthesis with a witness does not
// depend on whether it is valid.
update::update_partition_witness random_witness(const update::update_shape& shape) {
    std::mt19937_64 rng(1);
    auto rnd = [&rng] { return ff::fr_t::random(rng); };
    update::update_partition_witness w;
    w.k = 0;
    w.h = shape.h_default();
    w.comm_r_old = rnd(), w.comm_d_new = rnd(), w.comm_r_new = rnd();
    w.comm_c = rnd(), w.root_r_old = rnd(), w.root_r_new = rnd();
    for (unsigned i = 0; i < shape.apex_leaf_count; ++i) w.apex_leaves.push_back(rnd());
    const gadgets::merkle_arities r = shape.tree_r_arities();
    update::update_challenge_witness c;
    c.leaf_r_old = rnd(), c.leaf_d_new = rnd();
    for (size_t l = 0; l < r.levels(); ++l) {
        std::vector<ff::fr_t> level;
        for (unsigned s = 0; s + 1 < r.arity_of_level(l); ++s) level.push_back(rnd());
        c.path_r_old.push_back(level);
        c.path_r_new.push_back(std::move(level));
    }
    for (unsigned l = 0; l < shape.tree_d_levels(); ++l) c.path_d_new.push_back(rnd());
    w.challenges.assign(shape.challenge_count, c);
    return w;
}

}  // namespace

int run_update_circuit_info(const update::registered_update_proof& proof, bool witness_timing) {
    const update::update_shape shape = proof.shape();
    const auto t0 = std::chrono::steady_clock::now();
    cs::counting_cs counter;
    update::synthesize_empty_sector_update(counter, shape, nullptr);
    const double seconds = seconds_since(t0);

    const uint64_t rows = counter.num_constraints() + counter.num_inputs();
    nlohmann::ordered_json out;
    out["registered_proof"] = std::string(proof.name);
    out["abi_name"] = std::string(proof.abi_name);
    out["id"] = proof.id;
    out["kind"] = "snap-deals";
    out["constraints"] = counter.num_constraints();
    out["constraints_with_input_rows"] = rows;
    out["inputs"] = counter.num_inputs();
    out["aux"] = counter.num_aux();
    out["sector_size"] = proof.sector_size;
    out["nodes"] = shape.nodes;
    out["tree_shape"] = {shape.tree_r.base, shape.tree_r.sub, shape.tree_r.top};
    out["partitions"] = shape.partition_count;
    out["challenges_per_partition"] = shape.challenge_count;
    out["digests_per_partition"] = shape.digests_per_partition();
    out["apex_leaves_per_partition"] = shape.apex_leaf_count;
    out["h_default"] = shape.h_default();
    out["k_and_h_select_partition_0"] = update::k_and_h_select(shape, 0, shape.h_default());
    out["domain_size"] = std::bit_ceil(rows);
    out["matrix_terms"] = counter.num_terms();
    out["official_params"] = update::official_params_stem(shape);
    out["synthesis_seconds"] = seconds;
    if (witness_timing) {
        const update::update_partition_witness w = random_witness(shape);
        const auto t1 = std::chrono::steady_clock::now();
        cs::counting_cs timed(true);
        update::synthesize_empty_sector_update(timed, shape, &w);
        const double ws = seconds_since(t1);
        out["witness_synthesis_seconds"] = ws;
        out["witness_constraints_per_second"] = uint64_t(double(timed.num_constraints()) / std::max(ws, 1e-3));
    }
    out["note"] =
        "constraints: enforced by the circuit (no input rows); constraints_with_input_rows: plus one "
        "'input * 0 = 0' row per public input (ONE included) as bellperson's prover adds; inputs include ONE; "
        "official_params: the published .params/.vk stem";
    std::printf("%s\n", out.dump(2).c_str());
    return exit_ok;
}

}  // namespace cuzk::cli
