// The gRPC server of the API inside assemblerd: where it listens ([api] listen; a Unix socket by default,
// made mode 0660 so the service's group may connect), plaintext or TLS, 256 MiB messages each way (a PoRep C1
// wrapper is 50-70 MB, a full WindowPoSt request about 60 MB).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "daemon/config.hpp"

namespace grpc {
class Server;
}

namespace cuzk::api {

class proving_engine;

inline constexpr int max_message_bytes = 256 << 20;

class api_server {
public:
    // Starts listening; throws input_error naming the address when it cannot (in use, a bad TLS file, ...).
    api_server(const daemon::config& c, std::function<std::string()> metrics_text);
    ~api_server();  // stop()
    api_server(const api_server&) = delete;
    api_server& operator=(const api_server&) = delete;

    const std::string& address() const noexcept { return address_; }
    int port() const noexcept { return port_; }  // TCP: the port bound (the configured one, or the one picked for 0)
    // Refuses new calls, lets the waiting ones return (UNAVAILABLE within a second) and joins the threads.
    void stop();

private:
    std::atomic<bool> stopping_{false};
    std::unique_ptr<proving_engine> service_;
    std::unique_ptr<grpc::Server> server_;
    std::string address_;
    std::string socket_path_;
    int port_ = 0;
};

}  // namespace cuzk::api
