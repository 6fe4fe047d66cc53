// cuzk status: one JSON object with each daemon's own status (daemon/service_status.hpp says its shape).
// Exit 3 when none answers.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/command.hpp"
#include "cli/service_client.hpp"
#include "daemon/service_status.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::cli {

void add_status_command(CLI::App& app, action& run) {
    struct options {
        service_options service;
    };
    auto opt = std::make_shared<options>();
    auto* cmd = app.add_subcommand("status", "Jobs, partitions, slots, workers and lock statistics as JSON");
    opt->service.add_to(*cmd);
    cmd->callback([opt, &run] {
        run = [opt] {
            const auto c = opt->service.load();
            const auto status = daemon::collect_service_status(c, std::chrono::milliseconds(2000));
            const auto& out = status.json;
            const int answered = status.answered;
            std::printf("%s\n", out.dump(2).c_str());
            if (answered == 0) {
                std::fprintf(stderr, "cuzk: no daemon answers in %s: is the service running? (`cuzk up`)\n",
                             c.runtime.dir.c_str());
                return exit_unavailable;
            }
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
