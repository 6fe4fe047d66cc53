// cuzk up [--config F]: starts assemblerd, synthd and gpud locally and waits until each answers.
// cuzk down: stops them (SIGTERM, then SIGKILL after a grace period).
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/daemon_launcher.hpp"
#include "cli/service_client.hpp"

namespace cuzk::cli {

void add_up_command(CLI::App& app, action& run) {
    struct options {
        service_options service;
        unsigned wait_s = 60;
    };
    auto opt = std::make_shared<options>();
    auto* cmd = app.add_subcommand(
        "up", "Start the three daemons locally (default backend auto: CUDA if a GPU is found, else CPU) and wait until ready");
    opt->service.add_to(*cmd);
    cmd->add_option("--wait", opt->wait_s, "seconds to wait for readiness")->capture_default_str();
    cmd->callback([opt, &run] {
        run = [opt] {
            const auto c = opt->service.load();
            for (const auto& l : start_stages(c, opt->service.config_path, std::chrono::seconds(opt->wait_s))) {
                std::printf("cuzk-%s: %s (pid %d)\n", l.stage.c_str(), l.already_running ? "already running" : "ready",
                            l.pid);
            }
            std::printf("runtime dir %s, logs in %s/logs\n", c.runtime.dir.c_str(), c.runtime.dir.c_str());
            return exit_ok;
        };
    });
}

void add_down_command(CLI::App& app, action& run) {
    struct options {
        service_options service;
        unsigned grace_s = 15;
    };
    auto opt = std::make_shared<options>();
    auto* cmd = app.add_subcommand("down", "Stop the daemons `cuzk up` started");
    opt->service.add_to(*cmd);
    cmd->add_option("--grace", opt->grace_s, "seconds before SIGKILL")->capture_default_str();
    cmd->callback([opt, &run] {
        run = [opt] {
            const auto stopped = stop_stages(opt->service.load(), std::chrono::seconds(opt->grace_s));
            if (stopped.empty()) std::printf("no cuzk daemon was running\n");
            for (const auto& s : stopped) std::printf("cuzk-%s stopped\n", s.c_str());
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
