#include "api/front_door.hpp"

#include <fmt/format.h>

#include "api/api_error.hpp"
#include "daemon/service_client.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::api {

ipc::message front_door::call(std::string_view socket_name, const ipc::message& m,
                              std::chrono::milliseconds timeout) const {
    std::optional<ipc::message> reply;
    try {
        reply = daemon::request(config_.endpoint(socket_name), m, timeout);
    } catch (const std::exception& e) {
        throw api_error(grpc::StatusCode::INTERNAL, fmt::format("{} answered with a malformed reply: {}", socket_name, e.what()));
    }
    if (!reply)
        throw api_error(grpc::StatusCode::UNAVAILABLE,
                        fmt::format("{} did not answer {} within {} ms", socket_name, ipc::to_string(ipc::type_of(m)),
                                    timeout.count()));
    if (const auto* e = std::get_if<ipc::error_reply_msg>(&*reply)) {
        using enum ipc::error_code;
        const auto code = e->code == bad_request || e->code == unsupported_version ? grpc::StatusCode::INVALID_ARGUMENT
                          : e->code == unknown_job                                   ? grpc::StatusCode::NOT_FOUND
                          : e->code == queue_full                                    ? grpc::StatusCode::RESOURCE_EXHAUSTED
                          : e->code == unavailable                                   ? grpc::StatusCode::UNAVAILABLE
                          : e->code == permission_denied                             ? grpc::StatusCode::PERMISSION_DENIED
                                                                                     : grpc::StatusCode::INTERNAL;
        throw api_error(code, e->text);
    }
    return *reply;
}

ipc::message front_door::call_assemblerd(const ipc::message& m, std::chrono::milliseconds timeout) const {
    return call(ipc::socket_names::api, m, timeout);
}

}  // namespace cuzk::api
