// cuzk up [--config F] [--gpus 0,1]: starts assemblerd, synthd and gpud (one per GPU listed) locally and
// waits until each answers. cuzk down: stops them all (SIGTERM, then SIGKILL after a grace period) and removes
// the ring's shared-memory segment, which would otherwise hold its memory (slots x slot_bytes of /dev/shm)
// until the next start or a reboot; --keep-ring keeps it. A ring some live process still uses is kept.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/daemon_launcher.hpp"
#include "cli/service_client.hpp"
#include "daemon/ring_setup.hpp"

namespace cuzk::cli {

void add_up_command(CLI::App& app, action& run) {
    struct options {
        service_options service;
        unsigned wait_s = 60;
        std::string gpus;
    };
    auto opt = std::make_shared<options>();
    auto* cmd = app.add_subcommand(
        "up", "Start the three daemons locally (default backend auto: CUDA if a GPU is found, else CPU) and wait until ready");
    opt->service.add_to(*cmd);
    cmd->add_option("--wait", opt->wait_s, "seconds to wait for readiness")->capture_default_str();
    cmd->add_option("--gpus", opt->gpus,
                    "one gpud per GPU of this list, e.g. 0,1 (default: [gpud] gpu alone); leave [gpud] lock_name empty "
                    "or put {gpu} in it, so that each GPU has its own CUDA lock");
    cmd->callback([opt, &run] {
        run = [opt] {
            const auto c = opt->service.load();
            const std::vector<int> gpus = opt->gpus.empty() ? std::vector<int>{} : parse_gpu_list(opt->gpus);
            // Not refused (one lock for several GPUs still proves), but it serialises the GPUs' kernels.
            if (gpus.size() > 1 && !c.gpud.lock_per_gpu)
                std::fprintf(stderr,
                             "cuzk up: warning: [gpud] lock_name '%s' is one CUDA lock for all %zu gpuds, so their "
                             "kernels take turns; leave it empty or put {gpu} in it for one lock per GPU\n",
                             c.gpud.lock_name.c_str(), gpus.size());
            for (const auto& l : start_stages(c, opt->service.config_path, std::chrono::seconds(opt->wait_s), gpus)) {
                const std::string what = l.instance.gpu >= 0 && l.instance.name != "gpud"
                                             ? fmt::format("gpud (GPU {})", l.instance.gpu)
                                             : l.instance.name;
                std::printf("cuzk-%s: %s (pid %d)\n", what.c_str(), l.already_running ? "already running" : "ready",
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
        bool keep_ring = false;
    };
    auto opt = std::make_shared<options>();
    auto* cmd = app.add_subcommand("down", "Stop the daemons `cuzk up` started");
    opt->service.add_to(*cmd);
    cmd->add_option("--grace", opt->grace_s, "seconds before SIGKILL")->capture_default_str();
    cmd->add_flag("--keep-ring", opt->keep_ring,
                  "keep the ring's shared-memory segment (by default it is removed once no process uses it)");
    cmd->callback([opt, &run] {
        run = [opt] {
            const auto c = opt->service.load();
            const auto stopped = stop_stages(c, std::chrono::seconds(opt->grace_s));
            if (stopped.empty()) std::printf("no cuzk daemon was running\n");
            for (const auto& s : stopped) std::printf("cuzk-%s stopped\n", s.c_str());
            if (opt->keep_ring) {
                std::printf("ring '%s' kept (--keep-ring)\n", c.ring.name.c_str());
                return exit_ok;
            }
            const auto r = daemon::remove_unused_ring(c);
            switch (r.outcome) {
                case daemon::ring_removal::removed:
                    std::printf("ring '%s' removed (%s)\n", c.ring.name.c_str(), r.path.c_str());
                    break;
                case daemon::ring_removal::absent: break;
                case daemon::ring_removal::in_use:
                    std::fprintf(stderr, "cuzk down: ring '%s' (%s) kept: still in use by %s\n", c.ring.name.c_str(),
                                 r.path.c_str(), r.detail.c_str());
                    break;
                case daemon::ring_removal::failed:
                    std::fprintf(stderr, "cuzk down: ring '%s' (%s) kept: cannot tell whether a process uses it: %s\n",
                                 c.ring.name.c_str(), r.path.c_str(), r.detail.c_str());
                    break;
            }
            return exit_ok;
        };
    });
}

}  // namespace cuzk::cli
