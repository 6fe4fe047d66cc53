// One request / reply with a daemon over its ROUTER socket, as the CLI and tests use it: a fresh REQ socket
// per request, so a daemon that died (or restarted) mid-request costs one timeout, never a socket stuck in
// REQ's send/receive lockstep.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "ipc/messages.hpp"

namespace cuzk::daemon {

// std::nullopt when no reply came within |timeout| (the daemon is not running, or busy). Throws
// ipc::protocol_error when the reply does not decode.
std::optional<ipc::message> request(const std::string& endpoint, const ipc::message& m,
                                    std::chrono::milliseconds timeout);

}  // namespace cuzk::daemon
