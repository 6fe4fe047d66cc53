// cuzk setup --circuit NAME --out DIR: Groth16 parameters from random toxic waste, for tests and
// benchmarks only, written as DIR/<stem>.params and DIR/<stem>.vk in bellperson's format. Progress (its step and
// the elapsed time) goes to stderr: in place on a terminal, as lines elsewhere.
#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/progress_lines.hpp"
#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/setup.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {
struct setup_options {
    std::string circuit;
    std::string out;
    progress_options progress;
};
}  // namespace

void add_setup_command(CLI::App& app, action& run) {
    auto opt = std::make_shared<setup_options>();
    auto* cmd = app.add_subcommand("setup", "Generate test parameters (.params, .vk) for a built-in circuit");
    cmd->add_option("--circuit", opt->circuit, "built-in circuit, e.g. sha256:4 (see `cuzk circuits`)")->required();
    cmd->add_option("--out", opt->out, "output directory (created if missing)")->required();
    opt->progress.add_to(*cmd);
    cmd->callback([opt, &run] {
        run = [opt] {
            auto circuit = circuits::make_circuit(opt->circuit);
            std::error_code ec;
            std::filesystem::create_directories(opt->out, ec);
            if (ec) throw input_error(opt->out + ": cannot create output directory: " + ec.message());
            spdlog::warn("setup uses random toxic waste: parameters for tests and benchmarks only, never for production");
            std::string stem = circuit_file_stem(opt->circuit);
            auto params_path = std::filesystem::path(opt->out) / (stem + ".params");
            auto vk_path = std::filesystem::path(opt->out) / (stem + ".vk");
            groth16::setup_result res;
            {
                // A minute or more for PoRep: lines a log keeps show it is alive (cli/progress_lines.hpp).
                progress_heartbeat progress("setup " + opt->circuit, opt->progress);
                progress.step("generating the parameters");
                res = groth16::generate_random_parameters(*circuit);
                progress.step("writing " + params_path.string());
                groth16::write_parameters(params_path, res.params);
                groth16::write_vk(vk_path, res.params.vk);
            }
            spdlog::info("setup {}: {} constraints, {} inputs, {} aux, domain 2^{}; {}", opt->circuit,
                         res.num_constraints, res.num_inputs, res.num_aux, res.log_domain, res.timings.to_string());
            spdlog::info("wrote {} and {}", params_path.string(), vk_path.string());
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
