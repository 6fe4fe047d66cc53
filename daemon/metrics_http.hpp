// The operator's HTTP endpoint ([metrics] listen): GET /metrics with the Prometheus text exposition and
// GET /status with the JSON of `cuzk status`, each body produced by a callback at request time. Served by
// cpp-httplib on a thread of its own (and two workers), so a slow scrape never stalls the daemon's loop; the
// callbacks run on those workers and must be safe to call from them. Other paths are 404, other methods on
// these paths 405; a callback that throws answers 500 with its message and the server goes on serving.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

namespace httplib {
class Server;
}

namespace cuzk::daemon {

class metrics_http {
public:
    using body_source = std::function<std::string()>;

    metrics_http(body_source metrics, body_source status);
    ~metrics_http();
    metrics_http(const metrics_http&) = delete;
    metrics_http& operator=(const metrics_http&) = delete;

    // Binds |address| ("host:port", daemon/listen_address.hpp; port 0 takes any free port) and serves until stop(). Returns
    // once requests are accepted. Throws input_error for an address that does not parse, std::runtime_error
    // "<address>: cannot listen: <reason>" when it cannot be bound, std::logic_error when already started.
    void start(std::string_view address);
    // Stops accepting, finishes requests in flight and joins the thread; a no-op when not started.
    void stop();
    // The port bound (the one chosen when started on port 0); 0 when not started.
    int port() const { return port_; }

private:
    body_source metrics_;
    body_source status_;
    std::unique_ptr<httplib::Server> server_;
    std::thread thread_;
    std::atomic<bool> serving_done_{false};
    int port_ = 0;
};

}  // namespace cuzk::daemon
