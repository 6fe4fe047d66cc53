#include "daemon/request_router.hpp"

#include <spdlog/spdlog.h>

#include "daemon/peer_credentials.hpp"
#include "ipc/endpoints.hpp"
#include "ipc/message_socket.hpp"

namespace cuzk::daemon {

request_router::request_router(zmq::context_t& context, const std::string& endpoint, ipc::socket_access access)
    : socket_(context, zmq::socket_type::router) {
    socket_.set(zmq::sockopt::linger, 0);
    // A reply to a peer that went away is dropped rather than blocking the daemon.
    socket_.set(zmq::sockopt::router_mandatory, 0);
    socket_.bind(endpoint);
    ipc::set_socket_access(endpoint, access);
}

std::optional<routed_request> request_router::receive() {
    auto frame = ipc::recv_routed(socket_, zmq::recv_flags::dontwait);
    if (!frame) return std::nullopt;
    try {
        // Decoded before the envelope is moved out: a throw must leave the envelope for the error reply.
        auto body = ipc::decode(frame->body);
        const auto uid = peer_uid_of(frame->body);
        return routed_request{std::move(frame->envelope), std::move(body), uid};
    } catch (const ipc::protocol_error& e) {
        const auto type = ipc::peek_type(std::span(static_cast<const std::byte*>(frame->body.data()), frame->body.size()));
        spdlog::warn("malformed request answered with an error: {}", e.what());
        const bool version = std::string_view(e.what()).find("protocol version") != std::string_view::npos;
        reply(frame->envelope,
              ipc::error_reply_msg{version ? ipc::error_code::unsupported_version : ipc::error_code::bad_request, type,
                                   e.what()});
        return std::nullopt;
    }
}

void request_router::reply(std::vector<zmq::message_t>& envelope, const ipc::message& m) {
    // The requester timed out and went away (or its queue is full): it asks again or reports the timeout.
    if (!ipc::send_routed(socket_, envelope, m)) {
        spdlog::debug("{} reply dropped: the requester is gone", ipc::to_string(ipc::type_of(m)));
    }
}

void request_router::reply_error(std::vector<zmq::message_t>& envelope, ipc::error_code code, ipc::message_type request,
                                 std::string text) {
    reply(envelope, ipc::error_reply_msg{code, static_cast<std::uint8_t>(request), std::move(text)});
}

zmq::socket_t connect_socket(zmq::context_t& context, zmq::socket_type type, const std::string& endpoint) {
    zmq::socket_t s(context, type);
    s.set(zmq::sockopt::linger, 1000);
    s.set(zmq::sockopt::sndhwm, 100000);
    s.connect(endpoint);
    return s;
}

}  // namespace cuzk::daemon
