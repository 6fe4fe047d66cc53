// The receiving end of a daemon's control socket (ROUTER, bound at <runtime dir>/<name>.sock): requests
// are decoded here, and a frame that does not decode is answered with an ERROR_REPLY naming the problem, so
// a malformed request costs the sender an error and the daemon nothing.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "ipc/endpoints.hpp"

#include "ipc/messages.hpp"

namespace cuzk::daemon {

struct routed_request {
    std::vector<zmq::message_t> envelope;  // who to answer; consumed by reply()
    ipc::message body;
    std::optional<uid_t> peer_uid;  // the sending process's user (daemon/peer_credentials.hpp), where known
};

class request_router {
public:
    // |access|: who may connect (ipc/endpoints.hpp); the stages' sockets are the service user's alone.
    request_router(zmq::context_t& context, const std::string& endpoint,
                   ipc::socket_access access = ipc::socket_access::owner_only);

    zmq::socket_t& socket() noexcept { return socket_; }
    // Non-blocking. std::nullopt: nothing waiting, or a malformed frame (already answered).
    std::optional<routed_request> receive();
    void reply(std::vector<zmq::message_t>& envelope, const ipc::message& m);
    void reply_error(std::vector<zmq::message_t>& envelope, ipc::error_code code, ipc::message_type request,
                     std::string text);

private:
    zmq::socket_t socket_;
};

// A PUSH or DEALER socket connected to |endpoint|, with a bounded linger (shutdown never hangs on a peer
// that is gone) and a high-water mark large enough to ride out a restart of the peer.
zmq::socket_t connect_socket(zmq::context_t& context, zmq::socket_type type, const std::string& endpoint);

}  // namespace cuzk::daemon
