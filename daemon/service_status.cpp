#include "daemon/service_status.hpp"

#include <filesystem>

#include "daemon/service_client.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::daemon {

service_status collect_service_status(const config& c, std::chrono::milliseconds timeout,
                                      const std::function<bool(const std::filesystem::path&)>& may_connect) {
    service_status out;
    auto not_reachable = nlohmann::json::array();
    auto status_of = [&](const std::string& name) -> nlohmann::json {
        const auto socket = c.socket_path(name);
        if (!std::filesystem::exists(socket)) return nullptr;
        if (may_connect && !may_connect(socket)) {
            not_reachable.push_back(socket.string());
            return nullptr;
        }
        try {
            const auto reply = request(c.endpoint(name), ipc::status_request_msg{}, timeout);
            const auto* s = reply ? std::get_if<ipc::status_reply_msg>(&*reply) : nullptr;
            if (!s) return nullptr;
            auto j = nlohmann::json::parse(s->json);
            ++out.answered;
            return j;
        } catch (const std::exception&) {
            return nullptr;  // a reply that does not decode counts as no answer
        }
    };
    auto& j = out.json;
    j["assemblerd"] = status_of(std::string(ipc::socket_names::api));
    j["synthd"] = status_of(std::string(ipc::socket_names::synthd));
    auto gpuds = nlohmann::json::array();
    for (const int gpu : ipc::gpud_sockets_in(c.runtime.dir))
        if (auto g = status_of(ipc::gpud_socket_name(gpu)); !g.is_null()) gpuds.push_back(std::move(g));
    j["gpud"] = gpuds.empty() ? nlohmann::json(nullptr) : gpuds.front();
    j["gpuds"] = std::move(gpuds);
    if (!not_reachable.empty()) j["not_reachable"] = std::move(not_reachable);
    return out;
}

}  // namespace cuzk::daemon
