#include "daemon/service_client.hpp"

#include <zmq.hpp>

#include "ipc/message_socket.hpp"

namespace cuzk::daemon {

namespace {
zmq::context_t& client_context() {
    static zmq::context_t context(1);
    return context;
}
}  // namespace

std::optional<ipc::message> request(const std::string& endpoint, const ipc::message& m,
                                    std::chrono::milliseconds timeout) {
    zmq::socket_t socket(client_context(), zmq::socket_type::req);
    socket.set(zmq::sockopt::linger, 0);
    socket.set(zmq::sockopt::rcvtimeo, static_cast<int>(timeout.count()));
    socket.set(zmq::sockopt::sndtimeo, static_cast<int>(timeout.count()));
    socket.connect(endpoint);
    if (!ipc::send_message(socket, m)) return std::nullopt;
    return ipc::recv_message(socket);
}

}  // namespace cuzk::daemon
