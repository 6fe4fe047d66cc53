// cuzk prove-post --registered-proof NAME --vanilla F... --randomness HEX --params F --out proof.bin: one
// WindowPoSt partition or one WinningPoSt in one process, as filecoin-proofs' generate_single_window_post_with_vanilla
// and generate_winning_post_with_vanilla: decode each sector's bincode vanilla proof (vanilla_bincode.hpp),
// order the sectors by number, verify each natively against its challenged leaves, build the circuit (padding a
// Window partition by repeating the last sector, unrolling a Winning sector to 66 slots), prove, check the proof
// against the parameters' vk and write it (192 bytes).
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "cli/post_vanilla_files.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"
#include "common/post/post_partition.hpp"
#include "common/post/registered_post_proof.hpp"
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

    const auto t0 = std::chrono::steady_clock::now();
    const post_sectors read = read_post_sectors(proof, o.vanilla, "--vanilla");
    const post::post_partition_circuit circuit =
        post::partition_circuit_of(proof, randomness, read.sectors, read.sources);
    const double prepare_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    const groth16::parameters params = groth16::read_parameters(o.params);
    if (params.vk.ic.size() != proof.public_inputs_per_partition() + 1)
        throw input_error(o.params + ": the parameters have " + std::to_string(params.vk.ic.size()) + " IC points; " +
                          std::string(proof.name) + " needs " + std::to_string(proof.public_inputs_per_partition() + 1) +
                          " (are these the parameters of another PoSt circuit?)");
    const auto t1 = std::chrono::steady_clock::now();
    groth16::proof_result r = groth16::create_proof(circuit, params);
    const double prove_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    spdlog::info("{}: {} sectors decoded and verified in {:.2f}s, proved in {:.2f}s ({})", proof.name, read.sectors.size(),
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
