// cuzk verify --vk F --proof F --inputs F: prints valid/invalid (exit 0/1); bad files exit 2.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/public_inputs_json.hpp"
#include "common/groth16/verifier.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {
struct verify_options {
    std::string vk, proof, inputs;
};
}  // namespace

void add_verify_command(CLI::App& app, action& run) {
    auto opt = std::make_shared<verify_options>();
    auto* cmd = app.add_subcommand("verify", "Verify a Groth16 proof against a .vk file and public inputs");
    cmd->add_option("--vk", opt->vk, "verifying key (bellperson .vk)")->required();
    cmd->add_option("--proof", opt->proof, "proof file (192 bytes, or several concatenated)")->required();
    cmd->add_option("--inputs", opt->inputs, "public inputs: JSON array of decimal strings, ONE excluded")
        ->required();
    cmd->callback([opt, &run] {
        run = [opt] {
            groth16::verifying_key vk = groth16::read_vk(opt->vk);
            std::vector<uint8_t> bytes = read_file_bytes(opt->proof, "proof");
            std::vector<groth16::proof> proofs;
            try {
                proofs = groth16::proofs_from_bytes(bytes);
            } catch (const groth16::proof_decode_error& e) {
                throw input_error(opt->proof + ": " + e.what());
            }
            if (proofs.size() != 1) {
                throw input_error(opt->proof + ": holds " + std::to_string(proofs.size()) +
                                  " proofs; verify takes one 192-byte proof");
            }
            std::vector<ff::fr_t> inputs = groth16::read_public_inputs(opt->inputs);
            if (inputs.size() + 1 != vk.ic.size()) {
                throw input_error(opt->inputs + ": " + std::to_string(inputs.size()) + " public inputs, but " +
                                  opt->vk + " expects " + std::to_string(vk.ic.size() - 1));
            }
            auto pvk = groth16::prepare_verifying_key(vk);
            bool ok = groth16::verify_proof(pvk, proofs[0], inputs);
            std::printf("%s\n", ok ? "valid" : "invalid");
            return ok ? exit_ok : exit_negative;
        };
    });
}

}  // namespace cuzk::cli
