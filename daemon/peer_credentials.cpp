#include "daemon/peer_credentials.hpp"

#include <sys/socket.h>

namespace cuzk::daemon {

std::optional<uid_t> peer_uid_of(zmq::message_t& frame) {
    // ZMQ_SRCFD is deprecated in favour of ZAP metadata, which Unix sockets do not fill with credentials; it is
    // read on the loop thread right after the receive, while the connection (and so its fd) is still open.
    const int fd = zmq_msg_get(frame.handle(), ZMQ_SRCFD);
    if (fd < 0) return std::nullopt;
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) return std::nullopt;
    return cred.uid;
}

}  // namespace cuzk::daemon
