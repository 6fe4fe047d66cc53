// cuzk api prove|submit|await|cancel|status|metrics|preload|evict|load: the gRPC API (cuzk.v1.ProvingEngine) as
// Curio calls it, for an operator to try the service the way Curio will use it. They are separate from
// `cuzk prove` / `submit` / `await` (the daemons' own protocol, which works where the API is not configured and
// shows partition progress): these go through the API, so what they print is what Curio gets.
// --addr defaults to the configured [api] listen (unix://<runtime dir>/cuzk.sock).
#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "api/api_client.hpp"
#include "api/submission.hpp"
#include "cli/access_check.hpp"
#include "cli/client_errors.hpp"
#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "common/post/registered_post_proof.hpp"
#include "cli/service_client.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/util/errors.hpp"
#include "daemon/test_job_input.hpp"

namespace cuzk::cli {

namespace {

using steady = std::chrono::steady_clock;

struct api_options {
    service_options service;
    std::string addr;
    void add_to(CLI::App& cmd) {
        service.add_to(cmd);
        cmd.add_option("--addr", addr, "API address: unix:///path or host:port (default: the configured [api] listen)");
    }
    std::unique_ptr<cuzk::v1::ProvingEngine::Stub> connect() const {
        const std::string address = addr.empty() ? service.load().api_listen() : addr;
        // gRPC, like ZeroMQ, retries a refused unix-socket connect until its deadline: say why at once.
        for (const std::string_view scheme : {"unix://", "unix:"}) {
            if (address.starts_with(scheme)) {
                check_socket_access(address.substr(scheme.size()));
                break;
            }
        }
        return api::connect(address);
    }
};

// api::check, but RESOURCE_EXHAUSTED (the API's queue_full, or a full spool) is a busy service: exit 5, not bad
// input, since the same request succeeds later.
void check_reply(const grpc::Status& s, const char* call) {
    if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED)
        throw service_busy(
            fmt::format("{}: {} (gRPC status {})", call, s.error_message(), static_cast<int>(s.error_code())));
    api::check(s, call);
}

struct request_options {
    std::string c1, registered_proof, circuit, request_id, priority, randomness;
    std::vector<std::string> vanilla;
    std::uint64_t miner_id = 0, sector_number = 0, sector_size = 0, seed = 1;
    std::uint32_t partitions = 1;
    void add_to(CLI::App& cmd) {
        cmd.add_option("--c1", c1, "PoRep C1 output (JSON), sent as Curio sends it (its wrapper, base64)");
        cmd.add_option("--registered-proof", registered_proof, "the C1's registered proof, e.g. StackedDrg2KiBV1_1 "
                                                               "(default: the one the C1 names)");
        cmd.add_option("--miner-id", miner_id, "actor id (the prover id is its LEB128); 0: not checked");
        cmd.add_option("--sector-number", sector_number, "the sector's number");
        cmd.add_option("--sector-size", sector_size, "bytes (default: the registered proof's)");
        cmd.add_option("--vanilla", vanilla, "instead of --c1: PoSt vanilla proofs, one bincode FallbackPoStSectorProof "
                                             "file per sector in ascending sector number (WindowPoSt or WinningPoSt, "
                                             "by --registered-proof)")
            ->expected(1, -1);
        cmd.add_option("--randomness", randomness, "PoSt: the 32-byte randomness, hex");
        cmd.add_option("--circuit", circuit, "instead of --c1: a built-in test circuit (proof kind 100, a test facility)");
        cmd.add_option("--partitions", partitions, "partitions of a test-circuit job");
        cmd.add_option("--seed", seed, "seed of a test-circuit job");
        cmd.add_option("--request-id", request_id, "idempotency key (default: Curio's porep-<miner>-<sector>)");
        cmd.add_option("--priority", priority, "low, normal, high or critical (default: the kind's, as the server "
                                               "sets it: WinningPoSt critical, WindowPoSt high, others normal)")
            ->check(CLI::IsMember({"low", "normal", "high", "critical"}));
    }

    cuzk::v1::SubmitProofRequest build() const {
        if (int(!c1.empty()) + int(!circuit.empty()) + int(!vanilla.empty()) != 1)
            throw input_error("give exactly one of --c1 FILE, --vanilla FILE... or --circuit NAME");
        cuzk::v1::SubmitProofRequest r;
        if (!vanilla.empty()) {
            if (registered_proof.empty()) throw input_error("--vanilla needs --registered-proof (a PoSt proof's name)");
            const auto& proof = post::registered_post_proof_by_name(registered_proof);
            const auto random = parse_hex32("--randomness", randomness);
            r.set_proof_kind(proof.kind == post::post_kind::winning ? cuzk::v1::WINNING_POST
                                                                     : cuzk::v1::WINDOW_POST_PARTITION);
            r.set_registered_proof(proof.id);
            r.set_sector_size(sector_size ? sector_size : proof.sector_size);
            r.set_miner_id(miner_id);
            r.set_randomness(std::string(random.begin(), random.end()));
            for (const auto& f : vanilla) {
                const auto bytes = read_file_bytes(f, "vanilla proof");
                r.add_vanilla_proofs(std::string(bytes.begin(), bytes.end()));
            }
        } else if (!c1.empty()) {
            const auto bytes = read_file_bytes(c1, "C1 file");
            const std::string json(bytes.begin(), bytes.end());
            std::string name = registered_proof;
            if (name.empty()) {
                const auto at = json.find("\"registered_proof\"");
                const auto open = json.find('"', json.find(':', at) + 1);
                if (at == std::string::npos || open == std::string::npos)
                    throw input_error(c1 + ": no registered_proof in it: give --registered-proof");
                name = json.substr(open + 1, json.find('"', open + 1) - open - 1);
            }
            const auto& proof = porep::registered_proof_by_name(name);
            r = api::curio_porep_request(json, proof.id, sector_size ? sector_size : proof.sector_size, miner_id,
                                         sector_number);
        } else {
            daemon::test_job_input in{circuit, partitions, seed};
            r.set_proof_kind(static_cast<cuzk::v1::ProofKind>(api::test_circuit_kind));
            r.set_vanilla_proof(in.to_json());
        }
        if (!request_id.empty()) r.set_request_id(request_id);
        r.set_priority(priority == "low"    ? cuzk::v1::LOW
                       : priority == "high" ? cuzk::v1::HIGH
                       : priority == "critical" ? cuzk::v1::CRITICAL
                       : priority == "normal"   ? cuzk::v1::NORMAL
                                                : cuzk::v1::PRIORITY_UNSPECIFIED);
        return r;
    }
};

const char* status_name(cuzk::v1::AwaitProofResponse::Status s) {
    return cuzk::v1::AwaitProofResponse::Status_Name(s).c_str();
}

// Prints the reply's fields; writes the proof to |out|. Exit 0 for COMPLETED, 1 for any other status.
int report(const cuzk::v1::AwaitProofResponse& r, const std::string& out) {
    std::printf("job %s: %s, proof %zu bytes; queue wait %llu ms, parameters %llu ms, synthesis %llu ms, GPU %llu ms, "
                "total %llu ms\n",
                r.job_id().c_str(), status_name(r.status()), r.proof().size(),
                static_cast<unsigned long long>(r.queue_wait_ms()), static_cast<unsigned long long>(r.srs_load_ms()),
                static_cast<unsigned long long>(r.synthesis_ms()), static_cast<unsigned long long>(r.gpu_compute_ms()),
                static_cast<unsigned long long>(r.total_ms()));
    if (!r.error_message().empty()) std::printf("error: %s\n", r.error_message().c_str());
    if (r.status() != cuzk::v1::AwaitProofResponse::COMPLETED) return exit_negative;
    if (!out.empty()) {
        write_file_atomically(out, {reinterpret_cast<const std::uint8_t*>(r.proof().data()), r.proof().size()});
        std::printf("proof written to %s\n", out.c_str());
    }
    return exit_ok;
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(std::min<double>(v.size() - 1, p / 100.0 * (v.size() - 1) + 0.5));
    return v[i];
}

// 50 Prove calls at once (by default) of a test circuit, each its own request: all must complete, none may be
// answered with another's job or proof. Prints latency percentiles.
int run_load(const api_options& api, const std::string& circuit, std::uint32_t calls, std::uint32_t partitions) {
    auto engine = api.connect();
    std::mutex mutex;
    std::vector<double> latency_ms;
    std::set<std::string> jobs, proofs;
    std::vector<std::string> failures;
    const auto t0 = steady::now();
    std::vector<std::thread> threads;
    for (std::uint32_t i = 0; i < calls; ++i) {
        threads.emplace_back([&, i] {
            cuzk::v1::ProveRequest req;
            auto& s = *req.mutable_submit();
            s.set_request_id(fmt::format("load-{}-{}", ::getpid(), i));
            s.set_proof_kind(static_cast<cuzk::v1::ProofKind>(api::test_circuit_kind));
            s.set_vanilla_proof(daemon::test_job_input{circuit, partitions, 1000 + i}.to_json());
            cuzk::v1::ProveResponse resp;
            grpc::ClientContext ctx;
            const auto start = steady::now();
            const auto status = engine->Prove(&ctx, req, &resp);
            const double ms = std::chrono::duration<double, std::milli>(steady::now() - start).count();
            std::lock_guard lock(mutex);
            if (!status.ok()) return failures.push_back(fmt::format("call {}: {}", i, status.error_message()));
            if (resp.result().status() != cuzk::v1::AwaitProofResponse::COMPLETED)
                return failures.push_back(fmt::format("call {}: {} {}", i, status_name(resp.result().status()),
                                                      resp.result().error_message()));
            if (resp.result().proof().size() != 192u * partitions)
                return failures.push_back(fmt::format("call {}: {} proof bytes", i, resp.result().proof().size()));
            if (!jobs.insert(resp.result().job_id()).second)
                failures.push_back(fmt::format("call {}: job {} answered twice", i, resp.result().job_id()));
            if (!proofs.insert(resp.result().proof()).second) failures.push_back(fmt::format("call {}: a duplicate proof", i));
            latency_ms.push_back(ms);
        });
    }
    for (auto& t : threads) t.join();
    const double wall = std::chrono::duration<double>(steady::now() - t0).count();
    std::printf("%u concurrent Prove calls of %s x %u partitions: %zu completed, %zu distinct jobs, %zu distinct "
                "proofs, %zu failed, %.2f s wall\n",
                calls, circuit.c_str(), partitions, latency_ms.size(), jobs.size(), proofs.size(), failures.size(), wall);
    if (!latency_ms.empty())
        std::printf("latency ms: p50 %.0f  p90 %.0f  p99 %.0f  max %.0f\n", percentile(latency_ms, 50),
                    percentile(latency_ms, 90), percentile(latency_ms, 99), percentile(latency_ms, 100));
    for (const auto& f : failures) std::printf("failure: %s\n", f.c_str());
    return failures.empty() && latency_ms.size() == calls ? exit_ok : exit_negative;
}

}  // namespace

void add_api_command(CLI::App& app, action& run) {
    auto* api_cmd = app.add_subcommand("api", "Call the gRPC API (cuzk.v1.ProvingEngine) as Curio does");
    api_cmd->require_subcommand(1);

    {
        struct options {
            api_options api;
            request_options request;
            std::string out;
        };
        auto opt = std::make_shared<options>();
        auto* cmd = api_cmd->add_subcommand("prove", "Prove: submit and wait for the proof in one call (Curio's call)");
        opt->api.add_to(*cmd);
        opt->request.add_to(*cmd);
        cmd->add_option("--out", opt->out, "write the proof here");
        cmd->callback([opt, &run] {
            run = [opt] {
                cuzk::v1::ProveRequest req;
                *req.mutable_submit() = opt->request.build();
                cuzk::v1::ProveResponse resp;
                grpc::ClientContext ctx;
                check_reply(opt->api.connect()->Prove(&ctx, req, &resp), "Prove");
                return report(resp.result(), opt->out);
            };
        });
    }
    {
        struct options {
            api_options api;
            request_options request;
        };
        auto opt = std::make_shared<options>();
        auto* cmd = api_cmd->add_subcommand("submit", "SubmitProof: queue a proof, print its job id");
        opt->api.add_to(*cmd);
        opt->request.add_to(*cmd);
        cmd->callback([opt, &run] {
            run = [opt] {
                cuzk::v1::SubmitProofResponse resp;
                grpc::ClientContext ctx;
                check_reply(opt->api.connect()->SubmitProof(&ctx, opt->request.build(), &resp), "SubmitProof");
                std::printf("%s\nqueue position %u\n", resp.job_id().c_str(), resp.queue_position());
                return exit_ok;
            };
        });
    }
    {
        struct options {
            api_options api;
            std::string job, out;
            std::uint64_t timeout_ms = 0;
        };
        auto opt = std::make_shared<options>();
        auto* cmd = api_cmd->add_subcommand("await", "AwaitProof: wait for a job (TIMEOUT after --timeout-ms)");
        opt->api.add_to(*cmd);
        cmd->add_option("job", opt->job, "job id")->required();
        cmd->add_option("--timeout-ms", opt->timeout_ms, "give up waiting after this long (0: never); the job goes on");
        cmd->add_option("--out", opt->out, "write the proof here");
        cmd->callback([opt, &run] {
            run = [opt] {
                cuzk::v1::AwaitProofRequest req;
                req.set_job_id(opt->job);
                req.set_timeout_ms(opt->timeout_ms);
                cuzk::v1::AwaitProofResponse resp;
                grpc::ClientContext ctx;
                check_reply(opt->api.connect()->AwaitProof(&ctx, req, &resp), "AwaitProof");
                return report(resp, opt->out);
            };
        });
    }
    {
        struct options {
            api_options api;
            std::string job;
        };
        auto opt = std::make_shared<options>();
        auto* cmd = api_cmd->add_subcommand("cancel", "CancelProof: stop a job");
        opt->api.add_to(*cmd);
        cmd->add_option("job", opt->job, "job id")->required();
        cmd->callback([opt, &run] {
            run = [opt] {
                cuzk::v1::CancelProofRequest req;
                req.set_job_id(opt->job);
                cuzk::v1::CancelProofResponse resp;
                grpc::ClientContext ctx;
                check_reply(opt->api.connect()->CancelProof(&ctx, req, &resp), "CancelProof");
                std::printf("job %s cancelled (%s)\n", opt->job.c_str(),
                            resp.was_running() ? "work in flight was stopped" : "nothing was running");
                return exit_ok;
            };
        });
    }
    {
        auto opt = std::make_shared<api_options>();
        auto* cmd = api_cmd->add_subcommand("status", "GetStatus: GPUs, parameter sets, queues, totals");
        opt->add_to(*cmd);
        cmd->callback([opt, &run] {
            run = [opt] {
                cuzk::v1::GetStatusResponse resp;
                grpc::ClientContext ctx;
                check_reply(opt->connect()->GetStatus(&ctx, {}, &resp), "GetStatus");
                std::printf("%s\n", resp.DebugString().c_str());
                return exit_ok;
            };
        });
    }
    {
        auto opt = std::make_shared<api_options>();
        auto* cmd = api_cmd->add_subcommand("metrics", "GetMetrics: the Prometheus text");
        opt->add_to(*cmd);
        cmd->callback([opt, &run] {
            run = [opt] {
                cuzk::v1::GetMetricsResponse resp;
                grpc::ClientContext ctx;
                check_reply(opt->connect()->GetMetrics(&ctx, {}, &resp), "GetMetrics");
                std::fputs(resp.prometheus_text().c_str(), stdout);
                return exit_ok;
            };
        });
    }
    for (const bool preload : {true, false}) {
        struct options {
            api_options api;
            std::string circuit_id;
        };
        auto opt = std::make_shared<options>();
        auto* cmd = api_cmd->add_subcommand(preload ? "preload" : "evict",
                                            preload ? "PreloadSRS: load a parameter set in every gpud"
                                                    : "EvictSRS: free a parameter set in every gpud");
        opt->api.add_to(*cmd);
        cmd->add_option("circuit_id", opt->circuit_id, "porep-2k ... porep-64g, or a circuit spec (mul:64)")->required();
        cmd->callback([opt, preload, &run] {
            run = [opt, preload] {
                grpc::ClientContext ctx;
                if (preload) {
                    cuzk::v1::PreloadSrsRequest req;
                    req.set_circuit_id(opt->circuit_id);
                    cuzk::v1::PreloadSrsResponse resp;
                    check_reply(opt->api.connect()->PreloadSRS(&ctx, req, &resp), "PreloadSRS");
                    std::printf("%s: %s\n", opt->circuit_id.c_str(),
                                resp.already_loaded() ? "already loaded"
                                                      : fmt::format("loaded in {} ms", resp.load_time_ms()).c_str());
                } else {
                    cuzk::v1::EvictSrsRequest req;
                    req.set_circuit_id(opt->circuit_id);
                    cuzk::v1::EvictSrsResponse resp;
                    check_reply(opt->api.connect()->EvictSRS(&ctx, req, &resp), "EvictSRS");
                    std::printf("%s: %s\n", opt->circuit_id.c_str(),
                                resp.was_loaded() ? fmt::format("freed {} bytes", resp.freed_bytes()).c_str()
                                                  : "was not loaded");
                }
                return exit_ok;
            };
        });
    }
    {
        struct options {
            api_options api;
            std::string circuit = "mul:64";
            std::uint32_t calls = 50, partitions = 1;
        };
        auto opt = std::make_shared<options>();
        auto* cmd = api_cmd->add_subcommand("load", "Many concurrent Prove calls of a test circuit: all must complete, "
                                                    "none duplicated; prints latency percentiles");
        opt->api.add_to(*cmd);
        cmd->add_option("--calls", opt->calls, "concurrent calls")->check(CLI::Range(1u, 10000u));
        cmd->add_option("--circuit", opt->circuit, "test circuit of each call");
        cmd->add_option("--partitions", opt->partitions, "partitions per call")->check(CLI::Range(1u, 64u));
        cmd->callback([opt, &run] { run = [opt] { return run_load(opt->api, opt->circuit, opt->calls, opt->partitions); }; });
    }
}

}  // namespace cuzk::cli
