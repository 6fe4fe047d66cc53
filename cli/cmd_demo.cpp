// cuzk demo: the README's main job at this stage. Sets up, proves and verifies a built-in circuit
// through the files a user would handle (.params, .vk, proof, inputs), printing each step and its time,
// and shows that the verifier rejects a proof checked against altered public inputs.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "common/circuits/registry.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/public_inputs_json.hpp"
#include "common/groth16/setup.hpp"
#include "common/groth16/verifier.hpp"
#include "common/util/errors.hpp"
#include "common/util/resources.hpp"

namespace cuzk::cli {

namespace {

struct demo_options {
    std::string circuit = "sha256:2";
    std::string dir;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run_demo(const demo_options& opt) {
    namespace fs = std::filesystem;
    auto t_all = std::chrono::steady_clock::now();
    fs::path dir = opt.dir.empty() ? fs::temp_directory_path() / "cuzk-demo" : fs::path(opt.dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw input_error(dir.string() + ": cannot create demo directory: " + ec.message());

    auto circuit = circuits::make_circuit(opt.circuit);
    cs::counting_cs counter;
    circuit->synthesize(counter);
    std::printf("cuzk demo: circuit %s: %zu constraints, %zu public inputs (+ONE), %zu aux variables\n",
                opt.circuit.c_str(), counter.num_constraints(), counter.num_inputs_without_one(), counter.num_aux());

    auto t = std::chrono::steady_clock::now();
    auto setup = groth16::generate_random_parameters(*circuit);
    std::string stem = circuit_file_stem(opt.circuit);
    fs::path params_path = dir / (stem + ".params"), vk_path = dir / (stem + ".vk");
    groth16::write_parameters(params_path, setup.params);
    groth16::write_vk(vk_path, setup.params.vk);
    std::printf("  1. setup (random toxic waste: test parameters only), domain 2^%u: %.2f s\n     %s\n",
                setup.log_domain, seconds_since(t), setup.timings.to_string().c_str());
    std::printf("     wrote %s (%ju bytes) and %s (%ju bytes)\n", params_path.c_str(),
                uintmax_t(fs::file_size(params_path)), vk_path.c_str(), uintmax_t(fs::file_size(vk_path)));
    setup.params = {};

    t = std::chrono::steady_clock::now();
    groth16::parameters params = groth16::read_parameters(params_path);
    std::printf("  2. read parameters back (mmap, parallel decode, on-curve checks): %.2f s\n", seconds_since(t));

    t = std::chrono::steady_clock::now();
    auto res = groth16::create_proof(*circuit, params);
    fs::path proof_path = dir / "proof.bin", inputs_path = dir / "inputs.json";
    write_file_atomically(proof_path, groth16::proof_to_bytes(res.pi));
    groth16::write_public_inputs(inputs_path.string(), res.public_inputs);
    std::printf("  3. prove: %.2f s\n     %s\n", seconds_since(t), res.timings.to_string().c_str());
    std::printf("     wrote %s (192 bytes) and %s (%zu public inputs)\n", proof_path.c_str(), inputs_path.c_str(),
                res.public_inputs.size());

    t = std::chrono::steady_clock::now();
    auto vk = groth16::read_vk(vk_path);
    auto proof_bytes = read_file_bytes(proof_path, "proof");
    auto pi = groth16::proof_from_bytes(proof_bytes);
    auto inputs = groth16::read_public_inputs(inputs_path.string());
    auto pvk = groth16::prepare_verifying_key(vk);
    bool ok = groth16::verify_proof(pvk, pi, inputs);
    std::printf("  4. verify from the files on disk: %s (%.3f s)\n", ok ? "valid" : "INVALID", seconds_since(t));

    inputs[0] += ff::fr_t::one();
    bool forged = groth16::verify_proof(pvk, pi, inputs);
    std::printf("  5. verify against altered public inputs: %s (expected invalid)\n", forged ? "VALID" : "invalid");

    std::printf("cuzk demo: %s in %.2f s, peak RSS %.0f MiB; files in %s\n",
                ok && !forged ? "proof valid" : "FAILED", seconds_since(t_all), peak_rss_mib(), dir.c_str());
    return ok && !forged ? exit_ok : exit_negative;
}

}  // namespace

void add_demo_command(CLI::App& app, action& run) {
    auto opt = std::make_shared<demo_options>();
    auto* cmd = app.add_subcommand("demo", "Set up, prove and verify a built-in circuit end to end, with timings");
    cmd->add_option("--circuit", opt->circuit, "built-in circuit")->capture_default_str();
    cmd->add_option("--dir", opt->dir, "where to write the files (default: $TMPDIR/cuzk-demo)");
    cmd->callback([opt, &run] { run = [opt] { return run_demo(*opt); }; });
}

}  // namespace cuzk::cli
