// cuzk bench -c COUNT -j CONCURRENCY: COUNT jobs through the running service, at most CONCURRENCY in
// flight; reports throughput (s/proof, proofs/min over the wall time) and latency (submit to proof:
// p50, p95, max). Every job must end done: a failed one fails the bench (exit 1).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/command.hpp"
#include "cli/service_client.hpp"
#include "common/daemon/timeline.hpp"

namespace cuzk::cli {

namespace {

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

}  // namespace

void add_bench_command(CLI::App& app, action& run) {
    struct options {
        service_options service;
        job_request job;
        unsigned count = 4;
        unsigned concurrency = 2;
    };
    auto opt = std::make_shared<options>();
    opt->job.partitions = 2;
    auto* cmd = app.add_subcommand("bench", "Throughput and latency of the running service");
    opt->service.add_to(*cmd);
    opt->job.add_to(*cmd);
    cmd->add_option("-c,--count", opt->count, "jobs")->check(CLI::Range(1u, 100000u))->capture_default_str();
    cmd->add_option("-j,--concurrency", opt->concurrency, "jobs in flight")->check(CLI::Range(1u, 1024u))->capture_default_str();
    cmd->callback([opt, &run] {
        run = [opt] {
            // Without --c1, --post or --update, a test circuit job (mul:4096 unless --circuit names another).
            if (opt->job.c1_path.empty() && opt->job.post.empty() && opt->job.update.empty() &&
                opt->job.circuit.empty())
                opt->job.circuit = "mul:4096";
            const auto c = opt->service.load();
            std::atomic<unsigned> next{0};
            std::mutex mutex;
            std::vector<double> latencies;
            std::vector<std::string> failures;
            const auto tag = std::to_string(timeline::now_ms());
            const auto t0 = std::chrono::steady_clock::now();
            auto client = [&] {
                for (unsigned i; (i = next++) < opt->count;) {
                    auto job = opt->job;
                    if (job.c1_path.empty()) job.seed = opt->job.seed + 1000ull * i;  // distinct witnesses
                    job.request_id = opt->job.request_id.empty() ? "" : fmt::format("{}-{}-{}", opt->job.request_id, tag, i);
                    const auto start = std::chrono::steady_clock::now();
                    try {
                        const auto id = submit_job(c, job);
                        const auto r = await_job(c, id, std::chrono::seconds(0), nullptr, true);
                        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                        std::lock_guard lock(mutex);
                        if (r.state == ipc::job_state::done) latencies.push_back(s);
                        else failures.push_back(fmt::format("job {} {}: {}", id, ipc::to_string(r.state), r.error));
                    } catch (const std::exception& e) {
                        std::lock_guard lock(mutex);
                        failures.push_back(e.what());
                    }
                }
            };
            std::vector<std::thread> threads;
            for (unsigned t = 0; t < std::min(opt->concurrency, opt->count); ++t) threads.emplace_back(client);
            for (auto& t : threads) t.join();
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            for (const auto& f : failures) std::fprintf(stderr, "cuzk bench: %s\n", f.c_str());
            if (latencies.empty()) return exit_negative;
            const double n = static_cast<double>(latencies.size());
            // A test circuit's partitions are the option's; a C1's, a PoSt's or an update's come from the input.
            const std::string what = !opt->job.c1_path.empty()  ? opt->job.c1_path
                                     : !opt->job.post.empty()   ? "post:" + opt->job.post
                                     : !opt->job.update.empty() ? "update:" + opt->job.update
                                                                : fmt::format("{} x {} partitions", opt->job.circuit,
                                                                              opt->job.partitions);
            std::printf("cuzk bench: %zu jobs of %s, concurrency %u, wall %.2f s\n", latencies.size(), what.c_str(),
                        opt->concurrency, wall);
            std::printf("  throughput: %.3f s/proof, %.2f proofs/min\n", wall / n, n * 60.0 / wall);
            std::printf("  latency:    p50 %.3f s, p95 %.3f s, max %.3f s\n", percentile(latencies, 50),
                        percentile(latencies, 95), percentile(latencies, 100));
            return failures.empty() ? exit_ok : exit_negative;
        };
    });
}

}  // namespace cuzk::cli
