#include "daemon/metrics_http.hpp"

#include "common/util/errors.hpp"
#include "daemon/listen_address.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <stdexcept>
#include <system_error>

namespace cuzk::daemon {

namespace {

constexpr std::string_view metrics_path = "/metrics";
constexpr std::string_view status_path = "/status";

// httplib reports a failed bind as false and nothing more; binding the same address once more here gives the
// reason (in use, not a local address, a privileged port, a host that does not resolve).
std::string bind_failure_reason(const listen_address& where) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo* found = nullptr;
    const auto port = std::to_string(where.port);
    if (const int rc = ::getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found); rc != 0) return ::gai_strerror(rc);
    std::string reason = "bind failed";
    for (auto* a = found; a; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            reason = std::system_category().message(errno);
            continue;
        }
        const int yes = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 1) != 0) reason = std::system_category().message(errno);
        ::close(fd);
    }
    ::freeaddrinfo(found);
    return reason;
}

void serve(const metrics_http::body_source& source, std::string_view content_type, httplib::Response& res) {
    try {
        res.set_content(source(), std::string(content_type));
    } catch (const std::exception& e) {
        res.status = 500;
        res.set_content(fmt::format("{}\n", e.what()), "text/plain; charset=utf-8");
    } catch (...) {
        res.status = 500;
        res.set_content("unknown exception\n", "text/plain; charset=utf-8");
    }
}

}  // namespace

metrics_http::metrics_http(body_source metrics, body_source status)
    : metrics_(std::move(metrics)), status_(std::move(status)) {}

metrics_http::~metrics_http() { stop(); }

void metrics_http::start(std::string_view address) {
    if (thread_.joinable()) throw std::logic_error(fmt::format("metrics endpoint already serving on port {}", port_));
    const auto where = parse_listen_address(address, "[metrics] listen", false);

    auto server = std::make_unique<httplib::Server>();
    // Scrapes are one at a time per Prometheus server; httplib's default pool is a thread per core.
    server->new_task_queue = [] { return new httplib::ThreadPool(2); };
    // stop() waits for each worker to leave its connection: an idle kept-alive one after the keep-alive timeout
    // (default 5 s), a silent client after the read timeout. A scrape interval is 15 s or more, so a connection
    // kept longer would not be reused anyway.
    server->set_keep_alive_timeout(1);
    server->set_read_timeout(2, 0);
    // httplib's default sets SO_REUSEPORT, which lets a second process bind the same port and take half the
    // scrapes; SO_REUSEADDR alone still allows a restart while old connections sit in TIME_WAIT.
    server->set_socket_options([](int sock) {
        const int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    server->set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
        if (req.path != metrics_path && req.path != status_path) {
            res.status = 404;
            res.set_content(fmt::format("not found: {} (this endpoint serves {} and {})\n", req.path, metrics_path, status_path),
                            "text/plain; charset=utf-8");
            return httplib::Server::HandlerResponse::Handled;
        }
        if (req.method != "GET" && req.method != "HEAD") {
            res.status = 405;
            res.set_header("Allow", "GET, HEAD");
            res.set_content(fmt::format("method {} not allowed on {}: use GET\n", req.method, req.path),
                            "text/plain; charset=utf-8");
            return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });
    server->Get(std::string(metrics_path), [this](const httplib::Request&, httplib::Response& res) {
        serve(metrics_, "text/plain; version=0.0.4; charset=utf-8", res);
    });
    server->Get(std::string(status_path), [this](const httplib::Request&, httplib::Response& res) {
        serve(status_, "application/json", res);
    });

    int port = where.port;
    const bool bound = port == 0 ? (port = server->bind_to_any_port(where.host)) > 0 : server->bind_to_port(where.host, port);
    if (!bound) {
        throw std::runtime_error(fmt::format(
            "{}: cannot listen: {} (choose another [metrics] listen, or set it empty to turn the endpoint off)", address,
            bind_failure_reason(where)));
    }

    server_ = std::move(server);
    port_ = port;
    serving_done_ = false;
    thread_ = std::thread([this] {
        server_->listen_after_bind();
        serving_done_ = true;
    });
    // Server::stop() only closes a socket that listen_after_bind() has started serving; wait for that, so a
    // stop() right after start() cannot leave the thread accepting forever.
    while (!server_->is_running() && !serving_done_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!server_->is_running()) {
        thread_.join();
        server_.reset();
        port_ = 0;
        throw std::runtime_error(fmt::format("{}: cannot listen: the server stopped as it started", address));
    }
}

void metrics_http::stop() {
    if (!thread_.joinable()) return;
    server_->stop();
    thread_.join();
    server_.reset();
    port_ = 0;
}

}  // namespace cuzk::daemon
