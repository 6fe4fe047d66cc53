// cuzk status: one JSON object with each daemon's own status ({"assemblerd": ..., "synthd": ..., "gpud": ...,
// "gpuds": [...]}; null for a daemon that does not answer). One gpud runs per GPU: "gpuds" holds every one
// that answers, by GPU, and "gpud" the first of them (the only one on a single-GPU host, as before several
// GPUs were served). Exit 3 when none answers.
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
            int answered = 0;
            // null when |name| does not answer; no socket file: that daemon is not running (no need to wait).
            auto status_of = [&](const std::string& name) -> nlohmann::json {
                if (!std::filesystem::exists(c.socket_path(name))) return nullptr;
                try {
                    auto reply = call(c, name, ipc::status_request_msg{}, std::chrono::milliseconds(2000));
                    auto j = nlohmann::json::parse(std::get<ipc::status_reply_msg>(reply).json);
                    ++answered;
                    return j;
                } catch (const service_unavailable&) {
                    return nullptr;
                }
            };
            nlohmann::json out;
            out["assemblerd"] = status_of(std::string(ipc::socket_names::api));
            out["synthd"] = status_of(std::string(ipc::socket_names::synthd));
            auto gpuds = nlohmann::json::array();
            for (const int gpu : ipc::gpud_sockets_in(c.runtime.dir))
                if (auto j = status_of(ipc::gpud_socket_name(gpu)); !j.is_null()) gpuds.push_back(std::move(j));
            out["gpud"] = gpuds.empty() ? nlohmann::json(nullptr) : gpuds.front();
            out["gpuds"] = std::move(gpuds);
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
