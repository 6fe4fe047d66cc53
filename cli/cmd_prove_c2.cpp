// cuzk prove-c2 --c1 F --params F --out proof.bin: PoRep C2 in one process, as filecoin-ffi's
// seal_commit_phase2: parse the C1 (serde JSON or c2in.json), check it, build one circuit per
// partition from its vanilla proofs, prove each, verify each against the parameters' vk (the
// sanity check C2 ends with), and write the proofs concatenated (192 bytes per partition).
// --check synthesizes each partition against the witness first and names the first failing
// constraint (the cause when a C1 is corrupt); without it a corrupt C1 shows as a proof that does
// not verify.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/progress_lines.hpp"
#include "common/c1/seal_commit_phase1.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"
#include "common/porep/c1_witness.hpp"
#include "common/porep/porep_circuit.hpp"
#include "common/porep/public_inputs.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {

struct prove_c2_options {
    std::string c1, params, out;
    bool check = false;
    progress_options progress;
};

int run_prove_c2(const prove_c2_options& o) {
    const c1::seal_commit_phase1_output c1 = c1::read_c1_file(o.c1);
    c1::check_consistency(c1, o.c1);
    const porep::registered_proof& proof = porep::registered_proof_of(c1);
    const porep::seal_public_inputs pub = porep::public_inputs_of(c1);
    const auto graph = porep::graph_of(proof);

    const groth16::parameters params = groth16::read_parameters(o.params);
    if (params.vk.ic.size() != proof.public_inputs_per_partition() + 1)
        throw input_error(o.params + ": the parameters have " + std::to_string(params.vk.ic.size()) +
                          " IC points; " + std::string(proof.name) + " needs " +
                          std::to_string(proof.public_inputs_per_partition() + 1));
    const auto pvk = groth16::prepare_verifying_key(params.vk);

    std::vector<groth16::proof> proofs;
    progress_heartbeat progress("prove-c2 " + o.c1, o.progress);
    for (unsigned k = 0; k < proof.partitions; ++k) {
        progress.step(fmt::format("partition {}/{}", k + 1, proof.partitions));
        porep::porep_partition_circuit circuit(proof, porep::witness_of(c1, proof, k),
                                               porep::generate_public_inputs(proof, graph, pub, k));
        if (o.check) {
            cs::checking_cs checker;
            circuit.synthesize(checker);
            if (!checker.is_satisfied())
                throw input_error(o.c1 + ": partition " + std::to_string(k) + ": the C1 is not a valid witness: "
                                  "constraint " + *checker.first_failure() + " fails (" +
                                  std::to_string(checker.failures()) + " failing in all)");
        }
        auto t0 = std::chrono::steady_clock::now();
        groth16::proof_result r = groth16::create_proof(circuit, params);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        spdlog::info("partition {}/{}: proved in {:.2f}s ({})", k + 1, proof.partitions, s, r.timings.to_string());
        if (!groth16::verify_proof(pvk, r.pi, r.public_inputs)) {
            std::fprintf(stderr,
                         "cuzk: partition %u: the proof does not verify: the C1 is not a valid witness for its "
                         "public inputs (run with --check to name the failing constraint)\n",
                         k);
            return exit_negative;
        }
        proofs.push_back(r.pi);
    }
    write_file_atomically(o.out, groth16::proofs_to_bytes(proofs));
    spdlog::info("wrote {} ({} bytes)", o.out, proofs.size() * groth16::PROOF_BYTES);
    return exit_ok;
}

}  // namespace

void add_prove_c2_command(CLI::App& app, action& run) {
    auto o = std::make_shared<prove_c2_options>();
    auto* cmd = app.add_subcommand("prove-c2", "Prove PoRep C2 from a C1 JSON in this process (no daemons)");
    cmd->add_option("--c1", o->c1, "C1 output: SealCommitPhase1Output JSON or lotus-bench c2in.json")->required();
    cmd->add_option("--params", o->params, "Groth16 parameters of the registered proof (.params)")->required();
    cmd->add_option("--out", o->out, "proof output (192 bytes per partition)")->required();
    cmd->add_flag("--check", o->check, "check every constraint against the witness before proving");
    o->progress.add_to(*cmd);
    cmd->callback([o, &run] { run = [o] { return run_prove_c2(*o); }; });
}

}  // namespace cuzk::cli
