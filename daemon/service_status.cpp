#include "daemon/service_status.hpp"

#include <filesystem>

#include "daemon/service_client.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::daemon {

service_status collect_service_status(const config& c, std::chrono::milliseconds timeout) {
    service_status out;
    auto status_of = [&](const std::string& name) -> nlohmann::json {
        if (!std::filesystem::exists(c.socket_path(name))) return nullptr;
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
    return out;
}

}  // namespace cuzk::daemon
