#include "ipc/message_socket.hpp"

namespace cuzk::ipc {

bool send_message(zmq::socket_t& socket, const message& m, zmq::send_flags flags) {
    const auto bytes = encode(m);
    return socket.send(zmq::const_buffer(bytes.data(), bytes.size()), flags).has_value();
}

message decode(const zmq::message_t& frame) {
    return decode(std::span(static_cast<const std::byte*>(frame.data()), frame.size()));
}

std::optional<message> recv_message(zmq::socket_t& socket, zmq::recv_flags flags) {
    zmq::message_t frame;
    if (!socket.recv(frame, flags)) return std::nullopt;
    // A peer that sends several parts where one is expected: drain them so the next receive starts clean.
    bool extra = false;
    while (frame.more()) {
        extra = true;
        if (!socket.recv(frame, zmq::recv_flags::none)) break;
    }
    if (extra) throw protocol_error("a multipart message arrived where one control frame was expected");
    return decode(frame);
}

std::optional<routed_frame> recv_routed(zmq::socket_t& router, zmq::recv_flags flags) {
    routed_frame out;
    zmq::message_t part;
    if (!router.recv(part, flags)) return std::nullopt;
    while (part.more()) {
        out.envelope.push_back(std::move(part));
        part = zmq::message_t();
        // The remaining parts of a message arrive together with its first: a blocking receive returns at once.
        (void)router.recv(part, zmq::recv_flags::none);
    }
    out.body = std::move(part);
    return out;
}

bool send_routed(zmq::socket_t& router, std::vector<zmq::message_t>& envelope, const message& m) {
    for (auto& part : envelope) {
        if (!router.send(part, zmq::send_flags::sndmore)) return false;
    }
    envelope.clear();
    return send_message(router, m);
}

}  // namespace cuzk::ipc
