#include "common/circuits/registry.hpp"

#include <charconv>
#include <stdexcept>

#include "common/circuits/mul_chain.hpp"
#include "common/circuits/sha256_chain.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/sample_sector.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/post/sample_post.hpp"
#include "common/update/sample_update.hpp"
#include "common/update/update_circuit.hpp"
#include "common/update/update_witness.hpp"

namespace cuzk::circuits {

namespace {

constexpr size_t MAX_SHA256_BLOCKS = 1024;     // ~2^25 constraints
constexpr size_t MAX_MUL_CONSTRAINTS = 1u << 28;

[[noreturn]] void bad_spec(std::string_view spec, const std::string& why) {
    std::string msg("circuit spec '");
    msg.append(spec).append("': ").append(why).append(" (accepted: ");
    bool first = true;
    for (const auto& c : list_circuits()) {
        if (!first) msg.append(", ");
        msg.append(c.pattern);
        first = false;
    }
    msg.append(")");
    throw std::invalid_argument(msg);
}

size_t parse_count(std::string_view spec, std::string_view digits, size_t lo, size_t hi) {
    size_t v = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    // Messages are built with append: GCC 12 warns falsely (-Wrestrict) on "literal" + string.
    if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size()) {
        std::string why(1, '\'');
        why.append(digits).append("' is not a decimal count");
        bad_spec(spec, why);
    }
    if (v < lo || v > hi) {
        std::string why("count ");
        why.append(std::to_string(v)).append(" is outside ").append(std::to_string(lo)).append("..").append(std::to_string(hi));
        bad_spec(spec, why);
    }
    return v;
}

// A spec's parts: <kind>:<rest>[@seed].
struct spec_parts {
    std::string_view kind, rest;
    std::string seed;
};

spec_parts split_spec(std::string_view spec) {
    size_t colon = spec.find(':');
    if (colon == std::string_view::npos) bad_spec(spec, "expected <name>:<count>[@seed]");
    spec_parts p{spec.substr(0, colon), spec.substr(colon + 1), {}};
    if (size_t at = p.rest.find('@'); at != std::string_view::npos) {
        p.seed = std::string(p.rest.substr(at + 1));
        p.rest = p.rest.substr(0, at);
        if (p.seed.empty()) bad_spec(spec, "empty seed after '@'");
    }
    return p;
}

}  // namespace

std::vector<circuit_info> list_circuits() {
    return {
        {"sha256:<blocks>[@seed]",
         "chain of <blocks> SHA256 compressions over private message blocks derived from the seed; "
         "the final digest packed into 2 public inputs (about 26.4k constraints per block)"},
        {"mul:<n>[@seed]", "n multiplication constraints x_{k+1} = x_k * x_{k-1}; the last product is the one "
                           "public input (tiny, for unit tests)"},
        {"porep:<registered proof>[@seed]",
         "one StackedDRG PoRep partition (e.g. porep:StackedDrg2KiBV1_1); up to 8 MiB a sector sealed from the "
         "seed supplies the witness of partition 0, larger sizes are blank (setup and sizes only)"},
        {"post:<registered PoSt proof>[@seed]",
         "one fallback PoSt partition (e.g. post:StackedDrgWindow2KiBV1_1, post:StackedDrgWinning2KiBV1); up to "
         "8 MiB a full partition of random sectors from the seed supplies the witness, larger sizes are blank"},
        {"update:<registered update proof>[@seed]",
         "one SnapDeals partition (e.g. update:StackedDrgUpdate2KiBV1); up to 8 MiB partition 0 of an update of a "
         "random sector from the seed supplies the witness, larger sizes are blank"},
    };
}

void check_circuit_spec(std::string_view spec) {
    const spec_parts p = split_spec(spec);
    if (p.kind == "porep") {
        (void)porep::registered_proof_by_name(p.rest);
    } else if (p.kind == "post") {
        (void)post::registered_post_proof_by_name(p.rest);
    } else if (p.kind == "update") {
        (void)update::registered_update_proof_by_name(p.rest);
    } else {
        (void)make_circuit(spec);  // the chains: their constructors only parse the count and derive a seed
    }
}

std::unique_ptr<circuit> make_circuit(std::string_view spec) {
    const spec_parts parts = split_spec(spec);
    const std::string_view kind = parts.kind, rest = parts.rest;
    const std::string& seed = parts.seed;
    if (kind == "porep") {
        const porep::registered_proof& proof = porep::registered_proof_by_name(rest);
        if (proof.nodes > porep::MAX_SAMPLE_NODES) return std::make_unique<porep::porep_partition_circuit>(proof);
        auto c = std::make_unique<porep::porep_partition_circuit>(
            porep::make_sample_sector(proof, seed.empty() ? std::string("cuzk") : seed).partition_circuit(0));
        if (!seed.empty()) c->set_name(std::string(spec));
        return c;
    }
    if (kind == "post") {
        const post::registered_post_proof& proof = post::registered_post_proof_by_name(rest);
        if (proof.nodes > post::MAX_SAMPLE_NODES) return std::make_unique<post::post_partition_circuit>(proof);
        auto c = std::make_unique<post::post_partition_circuit>(
            post::make_sample_post(proof, seed.empty() ? std::string("cuzk") : seed, proof.sector_count).circuit());
        if (!seed.empty()) c->set_name(std::string(spec));
        return c;
    }
    if (kind == "update") {
        const update::registered_update_proof& proof = update::registered_update_proof_by_name(rest);
        if (proof.nodes() > update::MAX_SAMPLE_NODES) return std::make_unique<update::update_partition_circuit>(proof);
        const update::sample_update s =
            update::make_sample_update(proof.nodes(), seed.empty() ? std::string("cuzk") : seed);
        const update::update_commitments pub{s.comm_r_old, s.comm_d_new, s.comm_r_new, s.h};
        auto c = std::make_unique<update::update_partition_circuit>(
            proof, update::partition_witness_of(proof.shape(), s.partitions.at(0), 0, pub, "sample update"));
        if (!seed.empty()) c->set_name(std::string(spec));
        return c;
    }
    if (kind == "sha256") return std::make_unique<sha256_chain>(parse_count(spec, rest, 1, MAX_SHA256_BLOCKS), seed);
    if (kind == "mul") return std::make_unique<mul_chain>(parse_count(spec, rest, 1, MAX_MUL_CONSTRAINTS), seed);
    std::string why("unknown circuit '");
    why.append(kind).append("'");
    bad_spec(spec, why);
}

}  // namespace cuzk::circuits
