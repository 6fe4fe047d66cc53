// cuzk submit (--circuit NAME --partitions N | --c1 F): prints the job id.
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/service_client.hpp"

namespace cuzk::cli {

void add_submit_command(CLI::App& app, action& run) {
    struct options {
        service_options service;
        job_request job;
    };
    auto opt = std::make_shared<options>();
    auto* cmd = app.add_subcommand("submit", "Submit a job to the service; prints its id");
    opt->service.add_to(*cmd);
    opt->job.add_to(*cmd);
    cmd->callback([opt, &run] {
        run = [opt] {
            const auto id = submit_job(opt->service.load(), opt->job);
            std::printf("%llu\n", static_cast<unsigned long long>(id));
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
