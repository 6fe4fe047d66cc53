// cuzk verify-post: checks a WindowPoSt or WinningPoSt proof as rust-filecoin-proofs-api's verify_window_post
// and verify_winning_post do. The verifier recomputes the public inputs from the flags: the sectors in
// ascending order (Winning: the one sector repeated to its 66 slots), per partition k of sector_count sectors
// each sector's comm_r and the leaves challenged by SHA256(randomness || sector number || challenge index) under
// the API version's index rule, the last sector repeated to fill the partition; then one Groth16 check per
// 192-byte partition proof. Prints "valid" (exit 0) or "invalid" (exit 1); bad flags, files or encodings exit 2.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/hex_arg.hpp"
#include "cli/partition_proofs.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/verifier.hpp"
#include "common/post/public_inputs.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {

struct verify_post_options {
    std::string vk, registered_proof, randomness, proof, api_version;
    std::vector<std::string> sectors;  // "N:COMM_R_HEX"
};

post::public_sector parse_sector(const std::string& text) {
    const std::string flag = "--sector " + text;
    const size_t colon = text.find(':');
    if (colon == std::string::npos) throw input_error(flag + ": expected N:COMM_R_HEX (sector number, then comm_r)");
    post::public_sector s;
    const char* first = text.data();
    const char* last = text.data() + colon;
    const auto [p, ec] = std::from_chars(first, last, s.id);
    if (colon == 0 || ec != std::errc() || p != last)
        throw input_error(flag + ": '" + text.substr(0, colon) + "' is not a sector number (a decimal u64)");
    s.comm_r = parse_fr_hex(flag + " (comm_r)", std::string_view(text).substr(colon + 1));
    return s;
}

bool verify_post(const verify_post_options& o) {
    const post::registered_post_proof& proof = post::registered_post_proof_by_name(o.registered_proof);
    graph::api_version version = proof.version;
    if (!o.api_version.empty()) {
        const auto v = post::parse_api_version(o.api_version);
        if (!v) throw input_error("--api-version: '" + o.api_version + "'; expected 1.0.0, 1.1.0 or 1.2.0");
        version = *v;
    }
    const post::bytes32 randomness = parse_hex32("--randomness", o.randomness);
    post::check_randomness(randomness, "--randomness");

    std::vector<post::public_sector> given;
    for (const std::string& s : o.sectors) given.push_back(parse_sector(s));
    std::sort(given.begin(), given.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    for (size_t i = 1; i < given.size(); ++i)
        if (given[i].id == given[i - 1].id)
            throw input_error("--sector: sector " + std::to_string(given[i].id) + " is given twice");
    if (proof.kind == post::post_kind::winning && given.size() != proof.sector_count)
        throw input_error("--sector: " + std::to_string(given.size()) + " sectors; " + std::string(proof.name) +
                          " proves exactly " + std::to_string(proof.sector_count));
    const std::vector<post::public_sector> sectors = post::circuit_public_sectors(proof, given);
    const uint64_t partitions = proof.partitions_for(given.size());

    const groth16::verifying_key vk =
        read_vk_for(o.vk, proof.public_inputs_per_partition(), proof.name, "another PoSt circuit");
    const std::vector<groth16::proof> proofs = read_partition_proofs(
        o.proof, partitions, std::to_string(given.size()) + " sector(s) of " + std::string(proof.name) + " make");
    const auto pvk = groth16::prepare_verifying_key(vk);
    for (uint64_t k = 0; k < partitions; ++k)
        if (!groth16::verify_proof(pvk, proofs[k],
                                   post::generate_public_inputs(proof, version, randomness, sectors, unsigned(k))))
            return false;
    return true;
}

}  // namespace

void add_verify_post_command(CLI::App& app, action& run) {
    auto o = std::make_shared<verify_post_options>();
    auto* cmd = app.add_subcommand("verify-post",
                                   "Verify a WindowPoSt or WinningPoSt proof (as filecoin-proofs-api verify_window_post "
                                   "and verify_winning_post)");
    cmd->add_option("--vk", o->vk, "verifying key (.vk, bellperson format)")->required();
    cmd->add_option("--registered-proof", o->registered_proof,
                    "e.g. StackedDrgWindow32GiBV1_1 (" + post::registered_post_proof_names() + ")")
        ->required();
    cmd->add_option("--randomness", o->randomness, "32 bytes hex, a canonical field element")->required();
    cmd->add_option("--sector", o->sectors,
                    "N:COMM_R_HEX, the sector number and its comm_r (32 bytes hex as stored); repeat per sector, in "
                    "any order")
        ->required()
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->add_option("--proof", o->proof, "proof file (192 bytes per partition)")->required();
    cmd->add_option("--api-version", o->api_version,
                    "1.0.0, 1.1.0 or 1.2.0: the challenge-index rule (default: the registered proof's own, 1.2.0 for "
                    "StackedDrgWindow*V1_1, 1.0.0 otherwise)");
    cmd->callback([o, &run] {
        run = [o] {
            const bool valid = verify_post(*o);
            std::printf("%s\n", valid ? "valid" : "invalid");
            return valid ? exit_ok : exit_negative;
        };
    });
}

}  // namespace cuzk::cli
