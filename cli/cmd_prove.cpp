// cuzk prove, two ways, told apart by --params:
//   local:   cuzk prove --circuit NAME --params F --out proof.bin --inputs-out inputs.json
//            one process proves one instance of a built-in circuit with a .params file (no service needed)
//   service: cuzk prove (--c1 F | --circuit NAME --partitions N) --out proof.bin
//            submits to the running pipeline and awaits the assembled proof, with progress per partition
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/progress_lines.hpp"
#include "cli/service_client.hpp"
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
    std::string params, out, inputs_out;
    service_options service;
    job_request job;  // job.circuit is the circuit of both modes
    unsigned timeout_s = 0;
    progress_options progress;
};

int prove_through_service(const prove_options& opt) {
    if (!opt.inputs_out.empty())
        throw input_error("--inputs-out belongs to a local prove (with --params); the service verifies the proof itself");
    const auto c = opt.service.load();
    const auto id = submit_job(c, opt.job);
    std::fprintf(stderr, "job %llu submitted\n", static_cast<unsigned long long>(id));
    const auto r = await_job(c, id, std::chrono::seconds(opt.timeout_s), &opt.progress, true);
    return report_outcome(r, opt.out);
}
}  // namespace

void add_prove_command(CLI::App& app, action& run) {
    auto opt = std::make_shared<prove_options>();
    auto* cmd = app.add_subcommand("prove",
                                   "Prove: locally with --params (one built-in circuit instance), or through the "
                                   "running service (--c1 F, or --circuit NAME --partitions N)");
    opt->job.add_to(*cmd);
    opt->service.add_to(*cmd);
    cmd->add_option("--params", opt->params, "local prove: parameters (bellperson .params)");
    cmd->add_option("--out", opt->out, "proof output (192 bytes per partition)")->required();
    cmd->add_option("--inputs-out", opt->inputs_out, "local prove: public inputs output (JSON array of decimal strings)");
    cmd->add_option("--timeout", opt->timeout_s, "service prove: give up after this many seconds (0: never)");
    opt->progress.add_to(*cmd);
    cmd->callback([opt, &run] {
        run = [opt]() -> int {
            if (opt->params.empty()) return prove_through_service(*opt);
            if (opt->job.circuit.empty() || opt->inputs_out.empty())
                throw input_error("a local prove (--params) needs --circuit NAME and --inputs-out FILE");
            const auto& circuit_name = opt->job.circuit;
            auto circuit = circuits::make_circuit(circuit_name);
            groth16::parameters params = groth16::read_parameters(opt->params);
            groth16::proof_result res;
            try {
                const progress_heartbeat progress("prove " + circuit_name, opt->progress);
                res = groth16::create_proof(*circuit, params);
            } catch (const std::invalid_argument& e) {
                // The parameters were made for another circuit: the user's inputs disagree.
                throw input_error(opt->params + ": does not fit circuit " + circuit_name + ": " + e.what());
            }
            auto bytes = groth16::proof_to_bytes(res.pi);
            write_file_atomically(opt->out, bytes);
            groth16::write_public_inputs(opt->inputs_out, res.public_inputs);
            spdlog::info("proved {}: {}; peak RSS {:.0f} MiB", circuit_name, res.timings.to_string(), peak_rss_mib());
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
