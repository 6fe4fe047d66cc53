// cuzk demo: the README's main job, the real job in miniature through the gRPC API. Seals a 2 KiB test sector
// for miner 1000 (seal-test), makes its test parameters once into a cache kept for the next run, starts the
// three stages (gpud on the CPU backend) in a private runtime directory, proves the C2 with `Prove` over the unix
// socket as Curio's client does, verifies the proof as filecoin-ffi's verify_seal does (verify-seal), and stops
// the stages, printing each step with its time and what the reply carried.
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "api/api_client.hpp"
#include "api/submission.hpp"
#include "cli/command.hpp"
#include "cli/daemon_launcher.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "cli/seal_test.hpp"
#include "cli/service_client.hpp"
#include "cli/verify_seal.hpp"
#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/setup.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/util/errors.hpp"
#include "daemon/params_files.hpp"
#include "ipc/cuda_lock.hpp"
#include "ipc/partition_ring.hpp"

namespace cuzk::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view demo_proof = "StackedDrg2KiBV1_1";
constexpr std::uint64_t demo_miner = 1000, demo_sector = 1;

struct demo_options {
    std::string dir, params_dir;
};

ipc::segment_location named(const std::string& name) {
    ipc::segment_location where;
    where.name = name;
    return where;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// ${XDG_CACHE_HOME:-$HOME/.cache}/cuzk/demo-params: outside the demo directory, so a new one reuses them.
fs::path default_params_dir() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return fs::path(xdg) / "cuzk" / "demo-params";
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "cuzk" / "demo-params";
    return fs::temp_directory_path() / fmt::format("cuzk-demo-params-{}", ::getuid());
}

// The pair gpud will read for |spec| in |dir| when both of its files are there.
std::optional<daemon::params_files> existing_params(const fs::path& dir, const std::string& spec) {
    try {
        const auto f = daemon::resolve_params_files(dir, spec);
        std::error_code ec;
        if (fs::exists(f.params, ec) && fs::exists(f.vk, ec)) return f;
    } catch (const input_error&) {  // neither the official nor the test name there
    }
    return std::nullopt;
}

// Test parameters as `cuzk setup` makes them, .vk first: the .params is written under a temporary name and
// renamed, so an interrupted run never leaves a pair that looks whole.
daemon::params_files make_test_params(const fs::path& dir, const std::string& spec) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw input_error(dir.string() + ": cannot create the parameter directory: " + ec.message() +
                              " (give another with --params-dir)");
    const auto res = groth16::generate_random_parameters(*circuits::make_circuit(spec));
    daemon::params_files f{daemon::params_path(dir, spec), daemon::vk_path(dir, spec)};
    groth16::write_vk(f.vk, res.params.vk);
    groth16::write_parameters(f.params, res.params);
    return f;
}

std::string short_hex(const std::string& hex) { return hex.substr(0, 16) + "..."; }

int run_demo(const demo_options& opt) {
    const auto t_all = std::chrono::steady_clock::now();
    // Short: the socket paths under it must fit a Unix socket address.
    const fs::path dir = opt.dir.empty() ? fs::temp_directory_path() / fmt::format("cuzk-demo-{}", ::getuid()) : fs::path(opt.dir);
    const fs::path params_dir = opt.params_dir.empty() ? default_params_dir() : fs::path(opt.params_dir);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw input_error(dir.string() + ": cannot create the demo directory: " + ec.message());
    const auto& proof = porep::registered_proof_by_name(demo_proof);
    const std::string spec = "porep:" + std::string(demo_proof);

    // A private service: its own sockets, spool, ring and lock (named for the directory, so demos in two
    // directories do not meet), so a service already running is not touched.
    const auto tag = fmt::format("{}-{:08x}", ::getuid(), std::hash<std::string>{}(fs::absolute(dir).string()) & 0xffffffffu);
    const auto config_path = dir / "cuzk-demo.toml";
    std::ofstream(config_path) << fmt::format(R"([runtime]
dir = "{0}/rt"
spool_dir = "{0}/spool"
[metrics]
listen = ""
[ring]
name = "cuzk-demo-ring-{1}"
slots = 2
slot_bytes = {3}
[synthd]
threads = 2
[gpud]
backend = "cpu"
workers = 1
lock_name = "cuzk-demo-lock-{1}"
params_dir = "{2}"
)",
                                              dir.string(), tag, params_dir.string(),
                                              16ull << 20);  // the 2 KiB partition's compact witness: 2.2 MB
    const auto c = service_options{config_path.string(), ""}.load();
    std::printf("cuzk demo: a %s PoRep C2 through the gRPC API, as Curio asks for it (files in %s)\n",
                std::string(demo_proof).c_str(), dir.c_str());

    auto t = std::chrono::steady_clock::now();
    seal_test_options seal_opt;
    seal_opt.registered_proof = demo_proof;
    seal_opt.out = (dir / "sector").string();
    seal_opt.prover_id = to_hex(api::prover_id_of(demo_miner));
    seal_opt.sector_id = demo_sector;
    const auto seal = seal_test_sector(seal_opt);
    const auto c1_path = dir / "sector" / "c1.json";
    std::printf("  1. sealed a 2 KiB test sector (%s) for miner %llu (prover id: LEB128 of it), sector %llu (%.2f s)\n"
                "     sector/c1.json %ju bytes; sector/seal.json: comm_r %s, comm_d %s\n",
                std::string(demo_proof).c_str(), static_cast<unsigned long long>(demo_miner),
                static_cast<unsigned long long>(demo_sector), seconds_since(t),
                static_cast<std::uintmax_t>(fs::file_size(c1_path)), short_hex(seal["comm_r"].get<std::string>()).c_str(),
                short_hex(seal["comm_d"].get<std::string>()).c_str());

    t = std::chrono::steady_clock::now();
    auto params = existing_params(params_dir, spec);
    if (params) {
        std::printf("  2. test parameters (random toxic waste: tests only) reused from %s: %s (%.2f s)\n",
                    params_dir.c_str(), params->params.filename().c_str(), seconds_since(t));
    } else {
        std::printf("  2. making test parameters from random toxic waste (tests only) in %s, kept for the next run: a "
                    "minute or two, this first time\n",
                    params_dir.c_str());
        std::fflush(stdout);
        params = make_test_params(params_dir, spec);
        std::printf("     made %s, %.1f GB, and its .vk (%.2f s)\n", params->params.filename().c_str(),
                    static_cast<double>(fs::file_size(params->params)) / 1e9, seconds_since(t));
    }

    t = std::chrono::steady_clock::now();
    stop_stages(c, std::chrono::seconds(5));  // leftovers of an interrupted demo
    ipc::partition_ring::remove(named(c.ring.name));
    ipc::cuda_lock::remove(named(c.gpud.lock_name));
    // A fresh journal: the same request id and payload would otherwise be answered with the last run's proof.
    fs::remove_all(c.runtime.spool_dir, ec);
    std::string pids;
    for (const auto& l : start_stages(c, config_path.string(), std::chrono::seconds(60)))
        pids += fmt::format("{}{} pid {}", pids.empty() ? "" : ", ", l.instance.name, l.pid);
    const std::string address = c.api_listen();
    std::printf("  3. service up: %s (gpud on the CPU backend); logs in %s/logs (%.2f s)\n", pids.c_str(),
                c.runtime.dir.c_str(), seconds_since(t));

    const auto stop = [&c] {
        stop_stages(c, std::chrono::seconds(15));
        ipc::partition_ring::remove(named(c.ring.name));
        ipc::cuda_lock::remove(named(c.gpud.lock_name));
    };
    bool valid = false;
    try {
        t = std::chrono::steady_clock::now();
        const auto c1_bytes = read_file_bytes(c1_path, "C1 file");
        cuzk::v1::ProveRequest req;
        *req.mutable_submit() = api::curio_porep_request(std::string(c1_bytes.begin(), c1_bytes.end()), proof.id,
                                                         proof.sector_size, demo_miner, demo_sector);
        std::printf("  4. Prove over %s as Curio calls it (POREP_SEAL_COMMIT, registered proof %llu, sector size "
                    "%llu, request %s)\n",
                    address.c_str(), static_cast<unsigned long long>(proof.id),
                    static_cast<unsigned long long>(proof.sector_size), req.submit().request_id().c_str());
        std::fflush(stdout);
        cuzk::v1::ProveResponse resp;
        grpc::ClientContext ctx;
        api::check(api::connect(address)->Prove(&ctx, req, &resp), "Prove");
        const auto& r = resp.result();
        std::printf("     reply: %s, job %s, proof %zu bytes; queue wait %llu ms, parameter load %llu ms, synthesis "
                    "%llu ms, GPU %llu ms, total %llu ms (%.2f s)\n",
                    cuzk::v1::AwaitProofResponse::Status_Name(r.status()).c_str(), r.job_id().c_str(),
                    r.proof().size(), static_cast<unsigned long long>(r.queue_wait_ms()),
                    static_cast<unsigned long long>(r.srs_load_ms()), static_cast<unsigned long long>(r.synthesis_ms()),
                    static_cast<unsigned long long>(r.gpu_compute_ms()), static_cast<unsigned long long>(r.total_ms()),
                    seconds_since(t));
        if (r.status() != cuzk::v1::AwaitProofResponse::COMPLETED)
            throw std::runtime_error(fmt::format("Prove: job {} {}: {}", r.job_id(),
                                                 cuzk::v1::AwaitProofResponse::Status_Name(r.status()),
                                                 r.error_message()));
        const auto proof_path = dir / "proof.bin";
        write_file_atomically(proof_path, {reinterpret_cast<const std::uint8_t*>(r.proof().data()), r.proof().size()});

        t = std::chrono::steady_clock::now();
        verify_seal_options v;
        v.vk = params->vk.string();
        v.registered_proof = seal["registered_proof"].get<std::string>();
        v.sector_id = seal["sector_id"].get<std::uint64_t>();
        for (auto [field, name] : {std::pair{&v.prover_id, "prover_id"}, {&v.ticket, "ticket"}, {&v.seed, "seed"},
                                   {&v.comm_r, "comm_r"}, {&v.comm_d, "comm_d"}})
            *field = seal[name].get<std::string>();
        v.proof = proof_path.string();
        valid = verify_seal(v);
        std::printf("  5. verify-seal of proof.bin with %s and seal.json (prover id, sector, ticket, seed, comm_r, "
                    "comm_d): %s (%.2f s)\n",
                    params->vk.filename().c_str(), valid ? "valid" : "INVALID", seconds_since(t));
    } catch (...) {
        stop();
        throw;
    }
    t = std::chrono::steady_clock::now();
    stop();
    std::printf("  6. service stopped (%.2f s)\ncuzk demo: %s in %.2f s\n", seconds_since(t),
                valid ? "proof valid" : "FAILED: the proof does not verify", seconds_since(t_all));
    return valid ? exit_ok : exit_negative;
}

}  // namespace

void add_demo_command(CLI::App& app, action& run) {
    auto opt = std::make_shared<demo_options>();
    auto* cmd = app.add_subcommand("demo", "Seal a 2 KiB test sector, prove its C2 through the service's gRPC API as "
                                           "Curio does, verify it, stop");
    cmd->add_option("--dir", opt->dir, "where to keep the files (default: $TMPDIR/cuzk-demo-<uid>)");
    cmd->add_option("--params-dir", opt->params_dir,
                    "test parameters, made once and reused (default: ${XDG_CACHE_HOME:-$HOME/.cache}/cuzk/demo-params)");
    cmd->callback([opt, &run] { run = [opt] { return run_demo(*opt); }; });
}

}  // namespace cuzk::cli
