// cuzk await ID [--out F]: waits for a job; writes its proof; exit 0 done, 1 failed or cancelled.
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/service_client.hpp"

namespace cuzk::cli {

int report_outcome(const ipc::await_reply_msg& r, const std::string& out) {
    if (r.state != ipc::job_state::done) {
        std::fprintf(stderr, "cuzk: job %llu %s%s%s\n", static_cast<unsigned long long>(r.job_id),
                     std::string(ipc::to_string(r.state)).c_str(), r.error.empty() ? "" : ": ", r.error.c_str());
        return exit_negative;
    }
    if (!out.empty()) {
        write_file_atomically(out, std::span(reinterpret_cast<const uint8_t*>(r.proof.data()), r.proof.size()));
    }
    std::printf("job %llu done: %u partitions, %zu-byte proof%s%s\n", static_cast<unsigned long long>(r.job_id),
                r.partitions_total, r.proof.size(), out.empty() ? "" : " written to ", out.c_str());
    return exit_ok;
}

void add_await_command(CLI::App& app, action& run) {
    struct options {
        service_options service;
        std::uint64_t job = 0;
        std::string out;
        unsigned timeout_s = 0;
        progress_options progress;
    };
    auto opt = std::make_shared<options>();
    auto* cmd = app.add_subcommand("await", "Wait for a job; with --out, fetch its proof");
    opt->service.add_to(*cmd);
    cmd->add_option("job", opt->job, "job id (from `cuzk submit`)")->required();
    cmd->add_option("--out", opt->out, "write the proof here");
    cmd->add_option("--timeout", opt->timeout_s, "give up after this many seconds (0: never)");
    opt->progress.add_to(*cmd);
    cmd->callback([opt, &run] {
        run = [opt] {
            const auto r = await_job(opt->service.load(), opt->job, std::chrono::seconds(opt->timeout_s),
                                     &opt->progress, !opt->out.empty());
            return report_outcome(r, opt->out);
        };
    });
}

}  // namespace cuzk::cli
