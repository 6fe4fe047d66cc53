// cuzk verify-seal: checks a PoRep C2 proof as filecoin-ffi's verify_seal does. The verifier
// recomputes everything public from the flags: replica_id from prover id, sector id, ticket, comm_d
// and the porep id; per partition k the challenges from the seed, their DRG and expander parents (the
// graph of the porep id and API version), and the input vector; then one Groth16 check per 192-byte
// partition proof. The porep id and API version default to the registered proof's own.
// Prints "valid" (exit 0) or "invalid" (exit 1); bad flags, files or encodings exit 2.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "cli/partition_proofs.hpp"
#include "cli/verify_seal.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/verifier.hpp"
#include "common/porep/public_inputs.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

bool verify_seal(const verify_seal_options& o) {
    const porep::registered_proof& proof = porep::registered_proof_by_name(o.registered_proof);
    const auto prover_id = parse_hex32("--prover-id", o.prover_id);
    const auto ticket = parse_hex32("--ticket", o.ticket);
    const auto seed = parse_hex32("--seed", o.seed);
    const auto comm_d_bytes = parse_hex32("--comm-d", o.comm_d);
    porep::seal_public_inputs pub;
    pub.comm_d = parse_fr_hex("--comm-d", o.comm_d);
    pub.comm_r = parse_fr_hex("--comm-r", o.comm_r);
    pub.seed = seed;
    const graph::porep_id_t porep_id = o.porep_id.empty() ? proof.porep_id() : parse_hex32("--porep-id", o.porep_id);
    graph::api_version version = proof.version;
    if (!o.api_version.empty()) {
        const auto v = post::parse_api_version(o.api_version);
        if (!v) throw input_error("--api-version: '" + o.api_version + "'; expected 1.0.0, 1.1.0 or 1.2.0");
        version = *v;
    }
    pub.replica_id = porep::generate_replica_id(prover_id, o.sector_id, ticket, comm_d_bytes, porep_id);

    const groth16::verifying_key vk =
        read_vk_for(o.vk, proof.public_inputs_per_partition(), proof.name, "another sector size");
    const std::vector<groth16::proof> proofs =
        read_partition_proofs(o.proof, proof.partitions, std::string(proof.name) + " makes");

    const graph::stacked_graph graph(proof.nodes, porep_id, version);
    const auto pvk = groth16::prepare_verifying_key(vk);
    bool valid = true;
    for (unsigned k = 0; k < proof.partitions && valid; ++k)
        valid = groth16::verify_proof(pvk, proofs[k], porep::generate_public_inputs(proof, graph, pub, k));
    return valid;
}

namespace {

// The values a flag did not give, from `cuzk seal-test`'s seal.json (--seal): sector_id, prover_id, ticket,
// seed, comm_r, comm_d and registered_proof. Flags win over the file. True when the file gave the sector id.
bool fill_from_seal_file(verify_seal_options& o, const std::string& file, const CLI::App& cmd) {
    const auto bytes = read_file_bytes(file, "seal file");
    nlohmann::json s;
    try {
        s = nlohmann::json::parse(bytes.begin(), bytes.end());
    } catch (const nlohmann::json::exception& e) {
        throw input_error(file + ": not JSON: " + e.what());
    }
    const auto text = [&](const char* flag, const char* key, std::string& field) {
        if (cmd.count(flag) || !s.contains(key)) return;
        if (!s[key].is_string()) throw input_error(file + ": $." + key + " is not a string");
        field = s[key].get<std::string>();
    };
    text("--prover-id", "prover_id", o.prover_id);
    text("--ticket", "ticket", o.ticket);
    text("--seed", "seed", o.seed);
    text("--comm-r", "comm_r", o.comm_r);
    text("--comm-d", "comm_d", o.comm_d);
    text("--registered-proof", "registered_proof", o.registered_proof);
    if (cmd.count("--sector-id") || !s.contains("sector_id")) return false;
    if (!s["sector_id"].is_number_unsigned()) throw input_error(file + ": $.sector_id is not an unsigned number");
    o.sector_id = s["sector_id"].get<std::uint64_t>();
    return true;
}

int run_verify_seal(verify_seal_options o, const std::string& seal_file, const CLI::App& cmd) {
    const bool sector_from_file = !seal_file.empty() && fill_from_seal_file(o, seal_file, cmd);
    for (const auto& [flag, value] : {std::pair{"--registered-proof", &o.registered_proof}, {"--prover-id", &o.prover_id},
                                      {"--ticket", &o.ticket}, {"--seed", &o.seed}, {"--comm-r", &o.comm_r},
                                      {"--comm-d", &o.comm_d}})
        if (value->empty()) throw input_error(std::string(flag) + " is required (or --seal FILE holding it)");
    if (!cmd.count("--sector-id") && !sector_from_file)
        throw input_error("--sector-id is required (or --seal FILE holding it)");
    const bool valid = verify_seal(o);
    std::printf("%s\n", valid ? "valid" : "invalid");
    return valid ? exit_ok : exit_negative;
}

}  // namespace

void add_verify_seal_command(CLI::App& app, action& run) {
    auto o = std::make_shared<verify_seal_options>();
    auto seal_file = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("verify-seal", "Verify a PoRep C2 seal proof (as filecoin-ffi verify_seal)");
    cmd->add_option("--vk", o->vk, "verifying key (.vk, bellperson format)")->required();
    cmd->add_option("--seal", *seal_file, "seal.json of `cuzk seal-test`: the values below that no flag gives");
    cmd->add_option("--registered-proof", o->registered_proof, "e.g. StackedDrg32GiBV1_1");
    cmd->add_option("--sector-id", o->sector_id, "sector number");
    cmd->add_option("--prover-id", o->prover_id, "32 bytes hex (ID address payload, zero padded)");
    cmd->add_option("--ticket", o->ticket, "32 bytes hex");
    cmd->add_option("--seed", o->seed, "32 bytes hex (interactive randomness)");
    cmd->add_option("--comm-r", o->comm_r, "32 bytes hex, little-endian field element");
    cmd->add_option("--comm-d", o->comm_d, "32 bytes hex, little-endian field element");
    cmd->add_option("--proof", o->proof, "proof file (192 bytes per partition)")->required();
    cmd->add_option("--porep-id", o->porep_id,
                    "32 bytes hex (default: the registered proof's id as u64 LE, nonce 0, zeros)");
    cmd->add_option("--api-version", o->api_version,
                    "1.0.0, 1.1.0 or 1.2.0: the graph's version (default: the registered proof's own)");
    cmd->callback([o, seal_file, cmd, &run] { run = [o, seal_file, cmd] { return run_verify_seal(*o, *seal_file, *cmd); }; });
}

}  // namespace cuzk::cli
