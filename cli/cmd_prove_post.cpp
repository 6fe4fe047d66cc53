// cuzk prove-post --registered-proof NAME --vanilla F... --randomness HEX --params F --out proof.bin: one
// WindowPoSt partition or one WinningPoSt in one process, as filecoin-proofs' generate_single_window_post_with_vanilla
// and generate_winning_post_with_vanilla: decode each sector's bincode vanilla proof (vanilla_bincode.hpp),
// order the sectors by number, verify each natively against its challenged leaves, build the circuit (padding a
// Window partition by repeating the last sector, unrolling a Winning sector to 66 slots), prove, check the proof
// against the parameters' vk and write it (192 bytes).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"
#include "common/post/post_partition.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/post/vanilla_bincode.hpp"
#include "common/post/vanilla_shape.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {

struct prove_post_options {
    std::string registered_proof, randomness, params, out;
    std::vector<std::string> vanilla;
};

int run_prove_post(const prove_post_options& o) {
    const post::registered_post_proof& proof = post::registered_post_proof_by_name(o.registered_proof);
    const post::bytes32 randomness = parse_hex32("--randomness", o.randomness);
    post::check_randomness(randomness, "--randomness");
    if (o.vanilla.size() > proof.sector_count)  // before reading any file
        throw input_error("--vanilla: " + std::to_string(o.vanilla.size()) + " files; " + std::string(proof.name) +
                          (proof.kind == post::post_kind::winning ? " proves exactly " : " proves at most ") +
                          std::to_string(proof.sector_count) + " sector" + (proof.sector_count == 1 ? "" : "s") +
                          " per partition");

    const auto t0 = std::chrono::steady_clock::now();
    const post::vanilla_shape shape = post::vanilla_shape_of(proof.sector_size, proof.challenge_count);
    std::vector<post::fallback_sector_proof> decoded;
    decoded.reserve(o.vanilla.size());
    for (const std::string& file : o.vanilla)
        decoded.push_back(post::decode_sector_proof(read_file_bytes(file, "vanilla proof"), shape, file));
    // Verifiers take the sectors in ascending order (a BTreeMap): prove them in that order, whatever the
    // order of the files.
    std::vector<size_t> order(decoded.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return decoded[a].sector_id < decoded[b].sector_id; });
    std::vector<post::fallback_sector_proof> sectors;
    std::vector<std::string> sources;
    for (size_t i : order) {
        if (!sectors.empty() && sectors.back().sector_id == decoded[i].sector_id)
            throw input_error("--vanilla: " + sources.back() + " and " + o.vanilla[i] + " both prove sector " +
                              std::to_string(decoded[i].sector_id));
        sectors.push_back(std::move(decoded[i]));
        sources.push_back(o.vanilla[i]);
    }
    const post::post_partition_circuit circuit = post::partition_circuit_of(proof, randomness, sectors, sources);
    const double prepare_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    const groth16::parameters params = groth16::read_parameters(o.params);
    if (params.vk.ic.size() != proof.public_inputs_per_partition() + 1)
        throw input_error(o.params + ": the parameters have " + std::to_string(params.vk.ic.size()) + " IC points; " +
                          std::string(proof.name) + " needs " + std::to_string(proof.public_inputs_per_partition() + 1) +
                          " (are these the parameters of another PoSt circuit?)");
    const auto t1 = std::chrono::steady_clock::now();
    groth16::proof_result r = groth16::create_proof(circuit, params);
    const double prove_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    spdlog::info("{}: {} sectors decoded and verified in {:.2f}s, proved in {:.2f}s ({})", proof.name, sectors.size(),
                 prepare_s, prove_s, r.timings.to_string());
    if (!groth16::verify_proof(groth16::prepare_verifying_key(params.vk), r.pi, r.public_inputs)) {
        std::fprintf(stderr, "cuzk: the proof does not verify against %s's verifying key: the parameters are not "
                             "those of %s\n",
                     o.params.c_str(), std::string(proof.name).c_str());
        return exit_negative;
    }
    const auto bytes = groth16::proof_to_bytes(r.pi);
    write_file_atomically(o.out, bytes);
    spdlog::info("wrote {} ({} bytes)", o.out, bytes.size());
    return exit_ok;
}

}  // namespace

void add_prove_post_command(CLI::App& app, action& run) {
    auto o = std::make_shared<prove_post_options>();
    auto* cmd = app.add_subcommand("prove-post",
                                   "Prove a WindowPoSt partition or a WinningPoSt from vanilla proofs in this process "
                                   "(no daemons)");
    cmd->add_option("--registered-proof", o->registered_proof,
                    "e.g. StackedDrgWindow32GiBV1_1 or StackedDrgWinning32GiBV1 (" + post::registered_post_proof_names() +
                        ")")
        ->required();
    cmd->add_option("--vanilla", o->vanilla,
                    "one bincode FallbackPoStSectorProof per file and sector, in any order (Window: up to the "
                    "partition's sector count; Winning: exactly one)")
        ->required()
        ->expected(1, -1);
    cmd->add_option("--randomness", o->randomness, "32 bytes hex, a canonical field element")->required();
    cmd->add_option("--params", o->params, "Groth16 parameters of the circuit (.params)")->required();
    cmd->add_option("--out", o->out, "proof output (192 bytes)")->required();
    cmd->callback([o, &run] { run = [o] { return run_prove_post(*o); }; });
}

}  // namespace cuzk::cli
