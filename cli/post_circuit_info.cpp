#include "cli/post_circuit_info.hpp"

#include <nlohmann/json.hpp>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "cli/circuit_info_report.hpp"
#include "cli/hex_arg.hpp"
#include "cli/post_vanilla_files.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/post/fallback_circuit.hpp"
#include "common/post/official_params.hpp"
#include "common/post/post_partition.hpp"

namespace cuzk::cli {

namespace {

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

int run_post_circuit_info(const post::registered_post_proof& proof, bool witness_timing,
                          const std::optional<post_census_input>& census) {
    // The census's inputs are read and checked before the seconds of the blank synthesis.
    std::optional<post::post_partition_circuit> partition;
    if (census) {
        const post::bytes32 randomness = parse_hex32("--randomness", census->randomness);
        post::check_randomness(randomness, "--randomness");
        const post_sectors read = read_post_sectors(proof, census->vanilla, "--vanilla");
        partition.emplace(post::partition_circuit_of(proof, randomness, read.sectors, read.sources));
    }
    const post::fallback_circuit_shape shape = post::fallback_circuit_shape::of(proof);
    const auto t0 = std::chrono::steady_clock::now();
    cs::counting_cs counter;
    post::synthesize_fallback_post(counter, shape, nullptr);
    const double seconds = seconds_since(t0);

    nlohmann::ordered_json out;
    out["registered_proof"] = std::string(proof.name);
    out["id"] = proof.id;
    out["kind"] = proof.kind == post::post_kind::window ? "window" : "winning";
    out["api_version"] = std::string(post::api_version_text(proof.version));
    count_fields(out, counter);
    out["sector_size"] = proof.sector_size;
    out["nodes"] = proof.nodes;
    out["tree_shape"] = {proof.tree.base, proof.tree.sub, proof.tree.top};
    out["sectors_per_partition"] = proof.sector_count;
    out["challenges_per_sector"] = proof.challenge_count;
    out["circuit_sector_slots"] = shape.sectors;
    out["circuit_challenges_per_slot"] = shape.challenges;
    std::function<void(cs::counting_cs&)> with_witness;
    if (witness_timing) {
        with_witness = [&shape, w = random_witness(shape)](cs::counting_cs& timed) {
            post::synthesize_fallback_post(timed, shape, &w);
        };
    }
    if (partition) out["scalar_census"] = scalar_census_report(*partition, 0);
    return print_report(out, counter, post::official_params_stem(proof), seconds, with_witness);
}

}  // namespace cuzk::cli
