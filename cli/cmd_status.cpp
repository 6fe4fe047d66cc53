// cuzk status: a short summary of the service (cli/status_summary.hpp: each daemon up or down with its pid and
// key numbers, jobs by state, ring slots in use, GPUs); --json prints the whole document instead, each daemon's
// own status (daemon/service_status.hpp says its shape). Exit 3 when no daemon answers, 6 when this user may
// not reach the runtime directory or assemblerd's socket; a stage's socket it may not reach is shown as such.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/access_check.hpp"
#include "cli/client_errors.hpp"
#include "cli/command.hpp"
#include "cli/service_client.hpp"
#include "cli/status_summary.hpp"
#include "daemon/service_status.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::cli {

namespace {

// The front door must be reachable (else exit 6 naming it). The stages' sockets are the service user's alone: a
// client of the service's group gets assemblerd's part (its own jobs) and those stages shown as not reachable by
// it, rather than as down.
void check_access(const daemon::config& c) {
    check_directory_access(c.runtime.dir);
    check_socket_access(c.socket_path(ipc::socket_names::api));
}

bool may_connect(const std::filesystem::path& socket) {
    try {
        check_socket_access(socket);
        return true;
    } catch (const permission_denied&) {
        return false;
    }
}

}  // namespace

void add_status_command(CLI::App& app, action& run) {
    struct options {
        service_options service;
        bool json = false;
    };
    auto opt = std::make_shared<options>();
    auto* cmd = app.add_subcommand("status", "The service at a glance: daemons, jobs, ring slots, GPUs (--json: all "
                                             "of each daemon's status)");
    opt->service.add_to(*cmd);
    cmd->add_flag("--json", opt->json,
                  "print each daemon's whole status as one JSON object (jobs, partitions, queue, slots, workers, lock "
                  "statistics) instead of the summary");
    cmd->callback([opt, &run] {
        run = [opt] {
            const auto c = opt->service.load();
            check_access(c);
            const auto status = daemon::collect_service_status(c, std::chrono::milliseconds(2000), may_connect);
            if (opt->json) {
                std::printf("%s\n", status.json.dump(2).c_str());
            } else {
                std::fputs(status_summary(status.json, c).c_str(), stdout);
                if (status.answered > 0) std::printf("(`cuzk status --json` for every daemon's whole status)\n");
            }
            if (status.answered == 0) {
                std::fprintf(stderr, "cuzk: no daemon answers in %s: is the service running? (`cuzk up`)\n",
                             c.runtime.dir.c_str());
                return exit_unavailable;
            }
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
