// cuzk prove --circuit NAME --params F --out proof.bin --inputs-out inputs.json
#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/public_inputs_json.hpp"
#include "common/util/errors.hpp"
#include "common/util/resources.hpp"

namespace cuzk::cli {

namespace {
struct prove_options {
    std::string circuit, params, out, inputs_out;
};
}  // namespace

void add_prove_command(CLI::App& app, action& run) {
    auto opt = std::make_shared<prove_options>();
    auto* cmd = app.add_subcommand("prove", "Prove a built-in circuit with a .params file");
    cmd->add_option("--circuit", opt->circuit, "built-in circuit, e.g. sha256:4")->required();
    cmd->add_option("--params", opt->params, "parameters (bellperson .params)")->required();
    cmd->add_option("--out", opt->out, "proof output (192 bytes)")->required();
    cmd->add_option("--inputs-out", opt->inputs_out, "public inputs output (JSON array of decimal strings)")
        ->required();
    cmd->callback([opt, &run] {
        run = [opt] {
            auto circuit = circuits::make_circuit(opt->circuit);
            groth16::parameters params = groth16::read_parameters(opt->params);
            groth16::proof_result res;
            try {
                res = groth16::create_proof(*circuit, params);
            } catch (const std::invalid_argument& e) {
                // The parameters were made for another circuit: the user's inputs disagree.
                throw input_error(opt->params + ": does not fit circuit " + opt->circuit + ": " + e.what());
            }
            auto bytes = groth16::proof_to_bytes(res.pi);
            write_file_atomically(opt->out, bytes);
            groth16::write_public_inputs(opt->inputs_out, res.public_inputs);
            spdlog::info("proved {}: {}; peak RSS {:.0f} MiB", opt->circuit, res.timings.to_string(), peak_rss_mib());
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
