// Who sent a request on a daemon's Unix socket: the user id of the process at the other end of the connection it
// came in on (SO_PEERCRED of the connection ZeroMQ names with ZMQ_SRCFD, read as the request is received). The
// front door uses it to keep each client user's jobs to that user (assemblerd/job_access.hpp).
#pragma once

#include <sys/types.h>

#include <optional>

#include <zmq.hpp>

namespace cuzk::daemon {

// std::nullopt where it cannot be told: a frame not received from a socket, or a connection that is not a Unix
// socket (SO_PEERCRED fails on TCP).
std::optional<uid_t> peer_uid_of(zmq::message_t& frame);

}  // namespace cuzk::daemon
