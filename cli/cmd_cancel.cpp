// cuzk cancel ID: stops a job's queued and in-flight partitions and frees its ring slots.
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/service_client.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::cli {

void add_cancel_command(CLI::App& app, action& run) {
    struct options {
        service_options service;
        std::uint64_t job = 0;
    };
    auto opt = std::make_shared<options>();
    auto* cmd = app.add_subcommand("cancel", "Cancel a job");
    opt->service.add_to(*cmd);
    cmd->add_option("job", opt->job, "job id")->required();
    cmd->callback([opt, &run] {
        run = [opt] {
            auto reply = call(opt->service.load(), ipc::socket_names::api, ipc::cancel_msg{opt->job});
            const auto& r = std::get<ipc::await_reply_msg>(reply);
            std::printf("job %llu %s (%u of %u partitions had been proved)\n", static_cast<unsigned long long>(r.job_id),
                        std::string(ipc::to_string(r.state)).c_str(), r.partitions_done, r.partitions_total);
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
