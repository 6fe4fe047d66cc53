// cuzk status: one JSON object with each daemon's own status ({"assemblerd": ..., "synthd": ..., "gpud": ...};
// null for a daemon that does not answer). Exit 3 when none answers.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/command.hpp"
#include "cli/service_client.hpp"
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
            nlohmann::json out;
            int answered = 0;
            for (auto name : {ipc::socket_names::api, ipc::socket_names::synthd, ipc::socket_names::gpud}) {
                const std::string key = name == ipc::socket_names::api ? "assemblerd" : std::string(name);
                // No socket file: that daemon is not running (no need to wait for a reply).
                if (!std::filesystem::exists(c.socket_path(name))) {
                    out[key] = nullptr;
                    continue;
                }
                try {
                    auto reply = call(c, name, ipc::status_request_msg{}, std::chrono::milliseconds(2000));
                    out[key] = nlohmann::json::parse(std::get<ipc::status_reply_msg>(reply).json);
                    ++answered;
                } catch (const service_unavailable&) {
                    out[key] = nullptr;
                }
            }
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
