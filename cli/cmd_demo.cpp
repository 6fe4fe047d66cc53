// cuzk demo: the README's main job. Starts the three stages (assemblerd, synthd, gpud on the CPU backend)
// in a private runtime directory, proves a job of several partitions of a built-in circuit through them
// (synthesis -> shared-memory ring -> prover workers under the CUDA lock -> assembly and verification),
// checks every partition proof again here from the files on disk, shows that a proof does not verify for
// another partition's public inputs, prints the lock statistics, and stops the stages.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/daemon_launcher.hpp"
#include "cli/file_io.hpp"
#include "cli/service_client.hpp"
#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/verifier.hpp"
#include "common/util/errors.hpp"
#include "daemon/params_store.hpp"
#include "daemon/test_job_input.hpp"
#include "ipc/cuda_lock.hpp"
#include "ipc/endpoints.hpp"
#include "ipc/partition_ring.hpp"

namespace cuzk::cli {

namespace {

struct demo_options {
    std::string circuit = "sha256:1";
    std::uint32_t partitions = 3;
    std::string dir;
};

ipc::segment_location named(const std::string& name) {
    ipc::segment_location where;
    where.name = name;
    return where;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run_demo(const demo_options& opt) {
    namespace fs = std::filesystem;
    const auto t_all = std::chrono::steady_clock::now();
    // Short: the socket paths under it must fit a Unix socket address.
    const fs::path dir = opt.dir.empty() ? fs::temp_directory_path() / fmt::format("cuzk-demo-{}", ::getuid()) : fs::path(opt.dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw input_error(dir.string() + ": cannot create the demo directory: " + ec.message());
    (void)circuits::make_circuit(opt.circuit);  // a bad name fails here, before anything starts

    // A private pipeline: its own sockets, spool, ring and lock, so a service already running is not touched.
    const auto config_path = dir / "cuzk-demo.toml";
    std::ofstream(config_path) << fmt::format(R"([runtime]
dir = "{0}/rt"
spool_dir = "{0}/spool"
[ring]
name = "cuzk-demo-ring-{1}"
slots = 4
slot_bytes = 16777216
[synthd]
threads = 2
[gpud]
backend = "cpu"
workers = 2
lock_name = "cuzk-demo-lock-{1}"
)",
                                              dir.string(), ::getuid());
    service_options service{config_path.string(), ""};
    const auto c = service.load();
    std::printf("cuzk demo: %u partitions of %s through the pipeline (runtime %s)\n", opt.partitions,
                opt.circuit.c_str(), c.runtime.dir.c_str());

    auto t = std::chrono::steady_clock::now();
    stop_stages(c, std::chrono::seconds(5));  // leftovers of an interrupted demo
    ipc::partition_ring::remove(named(c.ring.name));
    for (const auto& l : start_stages(c, config_path.string(), std::chrono::seconds(60)))
        std::printf("  1. cuzk-%-10s pid %d ready\n", l.instance.name.c_str(), l.pid);
    std::printf("     stages up in %.2f s (logs with TIMELINE lines in %s/logs)\n", seconds_since(t), c.runtime.dir.c_str());

    int code = exit_negative;
    try {
        t = std::chrono::steady_clock::now();
        job_request job{"", opt.circuit, opt.partitions, 1, 0, ""};
        const auto id = submit_job(c, job);
        std::printf("  2. job %llu submitted; the first partition also sets up test parameters (random toxic "
                    "waste)\n",
                    static_cast<unsigned long long>(id));
        const auto r = await_job(c, id, std::chrono::seconds(0), ::isatty(STDERR_FILENO) != 0, true);
        if (r.state != ipc::job_state::done) throw std::runtime_error(fmt::format("job {} {}: {}", id, ipc::to_string(r.state), r.error));
        std::printf("     proved, assembled and verified by assemblerd in %.2f s: %zu bytes in %s\n", seconds_since(t),
                    r.proof.size(), r.result_path.c_str());

        t = std::chrono::steady_clock::now();
        const auto vk_file = daemon::vk_path(c.gpud.params_dir, opt.circuit);
        const auto pvk = groth16::prepare_verifying_key(groth16::read_vk(vk_file));
        const auto bytes = read_file_bytes(r.result_path, "proof");
        const daemon::test_job_input in{opt.circuit, opt.partitions, 1};
        std::uint32_t valid = 0;
        bool forged = false;
        for (std::uint32_t p = 0; p < opt.partitions; ++p) {
            const auto pi = groth16::proof_from_bytes(std::span(bytes).subspan(p * ipc::partition_proof_bytes,
                                                                                ipc::partition_proof_bytes));
            valid += groth16::verify_proof(pvk, pi, circuits::make_circuit(in.partition_spec(p))->public_inputs());
            forged |= groth16::verify_proof(pvk, pi, circuits::make_circuit(in.partition_spec(p + 1))->public_inputs());
        }
        std::printf("  3. verified again from %s and %s: %u of %u partition proofs valid (%.2f s)\n",
                    r.result_path.c_str(), vk_file.c_str(), valid, opt.partitions, seconds_since(t));
        std::printf("  4. each proof against the next partition's public inputs: %s (expected invalid)\n",
                    forged ? "VALID" : "invalid");

        auto reply = call(c, ipc::gpud_socket_name(c.gpud.gpu), ipc::status_request_msg{});
        const auto gpud = nlohmann::json::parse(std::get<ipc::status_reply_msg>(reply).json);
        const auto& lock = gpud["cuda_lock"];
        std::printf("  5. CUDA lock (CPU backend kernels): %llu acquisitions, held %.0f ms, waited %.0f ms in total\n",
                    static_cast<unsigned long long>(lock["acquisitions"].get<std::uint64_t>()),
                    lock["total_hold_ms"].get<double>(), lock["total_wait_ms"].get<double>());
        code = valid == opt.partitions && !forged ? exit_ok : exit_negative;
    } catch (...) {
        stop_stages(c, std::chrono::seconds(15));
        throw;
    }
    stop_stages(c, std::chrono::seconds(15));
    ipc::partition_ring::remove(named(c.ring.name));
    ipc::cuda_lock::remove(named(c.gpud.lock_name));
    std::printf("  6. stages stopped\ncuzk demo: %s in %.2f s; files in %s\n", code == exit_ok ? "proof valid" : "FAILED",
                seconds_since(t_all), dir.c_str());
    return code;
}

}  // namespace

void add_demo_command(CLI::App& app, action& run) {
    auto opt = std::make_shared<demo_options>();
    auto* cmd = app.add_subcommand("demo", "Start the pipeline, prove a job of several partitions through it, verify, stop");
    cmd->add_option("--circuit", opt->circuit, "built-in circuit of each partition")->capture_default_str();
    cmd->add_option("--partitions", opt->partitions, "partitions of the job")->check(CLI::Range(1u, 64u))->capture_default_str();
    cmd->add_option("--dir", opt->dir, "where to keep the files (default: $TMPDIR/cuzk-demo-<uid>)");
    cmd->callback([opt, &run] { run = [opt] { return run_demo(*opt); }; });
}

}  // namespace cuzk::cli
