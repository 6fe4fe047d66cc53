#include "cli/update_circuit_info.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "cli/circuit_info_report.hpp"
#include "cli/update_vanilla_files.hpp"
#include "common/util/errors.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/update/empty_sector_update_circuit.hpp"
#include "common/update/official_params.hpp"
#include "common/update/public_inputs.hpp"

namespace cuzk::cli {

namespace {

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

int run_update_circuit_info(const update::registered_update_proof& proof, bool witness_timing,
                            const std::optional<update_census_input>& census) {
    const update::update_shape shape = proof.shape();
    // The census's inputs are read and checked before the seconds of the blank synthesis.
    std::vector<update::update_partition_circuit> partitions;
    if (census) {
        if (census->partition >= shape.partition_count)
            throw input_error("--partition " + std::to_string(census->partition) + " is not a partition of " +
                              std::string(proof.name) + " (it has " + std::to_string(shape.partition_count) +
                              ", numbered from 0)");
        const update::update_commitments pub =
            update_commitments_of(shape, census->comm_r_old, census->comm_d_new, census->comm_r_new, census->h);
        partitions = read_update_partitions(proof, census->vanilla, pub, "--vanilla");
    }
    const auto t0 = std::chrono::steady_clock::now();
    cs::counting_cs counter;
    update::synthesize_empty_sector_update(counter, shape, nullptr);
    const double seconds = seconds_since(t0);

    nlohmann::ordered_json out;
    out["registered_proof"] = std::string(proof.name);
    out["abi_name"] = std::string(proof.abi_name);
    out["id"] = proof.id;
    out["kind"] = "snap-deals";
    count_fields(out, counter);
    out["sector_size"] = proof.sector_size;
    out["nodes"] = shape.nodes;
    out["tree_shape"] = {shape.tree_r.base, shape.tree_r.sub, shape.tree_r.top};
    out["partitions"] = shape.partition_count;
    out["challenges_per_partition"] = shape.challenge_count;
    out["digests_per_partition"] = shape.digests_per_partition();
    out["apex_leaves_per_partition"] = shape.apex_leaf_count;
    out["h_default"] = shape.h_default();
    out["k_and_h_select_partition_0"] = update::k_and_h_select(shape, 0, shape.h_default());
    std::function<void(cs::counting_cs&)> with_witness;
    if (witness_timing) {
        with_witness = [&shape, w = random_witness(shape)](cs::counting_cs& timed) {
            update::synthesize_empty_sector_update(timed, shape, &w);
        };
    }
    if (census) out["scalar_census"] = scalar_census_report(partitions.at(census->partition), census->partition);
    return print_report(out, counter, update::official_params_stem(shape), seconds, with_witness);
}

}  // namespace cuzk::cli
