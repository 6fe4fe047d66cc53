// Sending and receiving control messages over cppzmq sockets. A message is one frame; on ROUTER sockets the
// frames before it are the routing envelope, kept opaque and echoed on the reply.
// Conventions as in cppzmq: an empty result means EAGAIN (non-blocking, or a receive timeout); other ZeroMQ
// failures throw zmq::error_t; a frame that does not decode throws protocol_error.
#pragma once

#include "ipc/messages.hpp"

#include <zmq.hpp>

#include <optional>
#include <vector>

namespace cuzk::ipc {

[[nodiscard]] bool send_message(zmq::socket_t& socket, const message& m, zmq::send_flags flags = zmq::send_flags::none);
[[nodiscard]] std::optional<message> recv_message(zmq::socket_t& socket, zmq::recv_flags flags = zmq::recv_flags::none);

message decode(const zmq::message_t& frame);

// A request as a ROUTER socket receives it: envelope frames, then the message frame (undecoded, so that a
// malformed one can still be answered with an ERROR_REPLY to the right peer).
struct routed_frame {
    std::vector<zmq::message_t> envelope;
    zmq::message_t body;
};
[[nodiscard]] std::optional<routed_frame> recv_routed(zmq::socket_t& router,
                                                      zmq::recv_flags flags = zmq::recv_flags::none);
// Sends |m| to the peer of |envelope| (whose frames are consumed).
[[nodiscard]] bool send_routed(zmq::socket_t& router, std::vector<zmq::message_t>& envelope, const message& m);

}  // namespace cuzk::ipc
