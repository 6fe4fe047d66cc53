#include "cli/post_circuit_info.hpp"

#include <nlohmann/json.hpp>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "cli/command.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/post/fallback_circuit.hpp"
#include "common/post/official_params.hpp"

namespace cuzk::cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::round(s * 1000) / 1000;
}

// Random values of the shape: the time of synthesis with a witness does not depend on whether it is valid.
post::fallback_witness random_witness(const post::fallback_circuit_shape& shape) {
    std::mt19937_64 rng(1);
    post::sector_slot slot{ff::fr_t::random(rng), ff::fr_t::random(rng), ff::fr_t::random(rng), {}};
    for (unsigned c = 0; c < shape.challenges; ++c) {
        post::challenge_opening o{ff::fr_t::random(rng), {}};
        for (size_t l = 0; l < shape.tree_r.levels(); ++l) {
            merkle::path_level level;
            const unsigned arity = shape.tree_r.arity_of_level(l);
            level.index = uint32_t(rng() % arity);
            for (unsigned s = 0; s + 1 < arity; ++s) level.siblings.push_back(ff::fr_t::random(rng));
            o.path.push_back(std::move(level));
        }
        slot.challenges.push_back(std::move(o));
    }
    return post::fallback_witness{std::vector<post::sector_slot>(shape.sectors, slot)};
}

}  // namespace

int run_post_circuit_info(const post::registered_post_proof& proof, bool witness_timing) {
    const post::fallback_circuit_shape shape = post::fallback_circuit_shape::of(proof);
    const auto t0 = std::chrono::steady_clock::now();
    cs::counting_cs counter;
    post::synthesize_fallback_post(counter, shape, nullptr);
    const double seconds = seconds_since(t0);

    const uint64_t rows = counter.num_constraints() + counter.num_inputs();
    nlohmann::ordered_json out;
    out["registered_proof"] = std::string(proof.name);
    out["id"] = proof.id;
    out["kind"] = proof.kind == post::post_kind::window ? "window" : "winning";
    out["api_version"] = std::string(post::api_version_text(proof.version));
    out["constraints"] = counter.num_constraints();
    out["constraints_with_input_rows"] = rows;
    out["inputs"] = counter.num_inputs();
    out["aux"] = counter.num_aux();
    out["sector_size"] = proof.sector_size;
    out["nodes"] = proof.nodes;
    out["tree_shape"] = {proof.tree.base, proof.tree.sub, proof.tree.top};
    out["sectors_per_partition"] = proof.sector_count;
    out["challenges_per_sector"] = proof.challenge_count;
    out["circuit_sector_slots"] = shape.sectors;
    out["circuit_challenges_per_slot"] = shape.challenges;
    out["domain_size"] = std::bit_ceil(rows);
    out["matrix_terms"] = counter.num_terms();
    out["official_params"] = post::official_params_stem(proof);
    out["synthesis_seconds"] = seconds;
    if (witness_timing) {
        const post::fallback_witness w = random_witness(shape);
        const auto t1 = std::chrono::steady_clock::now();
        cs::counting_cs timed(true);
        post::synthesize_fallback_post(timed, shape, &w);
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
