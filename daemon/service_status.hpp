// The status of the whole service: each daemon's own status JSON, asked over its control socket.
//   {"assemblerd": ..., "synthd": ..., "gpud": ..., "gpuds": [...]}
// null for a daemon that does not answer. One gpud runs per GPU: "gpuds" holds every one that answers, by GPU,
// and "gpud" the first of them. What `cuzk status` prints, the API's GetStatus reads and /status serves.
// "not_reachable": the sockets the caller may not connect to (a client user: the stages' sockets are the service
// user's alone), not asked; absent when there are none.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "daemon/config.hpp"

namespace cuzk::daemon {

struct service_status {
    nlohmann::json json;
    int answered = 0;  // daemons that answered
};

// A field of a daemon's status JSON: |fallback| where the object, or the key, is missing or null (a daemon that
// did not answer, or an older one without the field).
template <class T>
T status_value(const nlohmann::json& j, const char* key, T fallback) {
    if (!j.is_object()) return fallback;
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

// Asks every daemon of |c|'s runtime directory, each within |timeout|. A daemon without a socket file is not
// running (not waited for); one whose socket |may_connect| refuses is not asked (a refused connect would only
// be retried until the timeout) and is listed in "not_reachable".
service_status collect_service_status(const config& c, std::chrono::milliseconds timeout,
                                      const std::function<bool(const std::filesystem::path&)>& may_connect = {});

}  // namespace cuzk::daemon
