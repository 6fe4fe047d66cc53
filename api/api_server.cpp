#include "api/api_server.hpp"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/server_credentials.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/proving_engine.hpp"
#include "common/util/errors.hpp"
#include "daemon/listen_address.hpp"

namespace cuzk::api {

namespace {

namespace fs = std::filesystem;

std::string read_pem(const fs::path& path, const char* key) {
    std::ifstream in(path);
    if (!in) throw input_error(fmt::format("[api] {} = \"{}\": cannot read the file", key, path.string()));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::shared_ptr<grpc::ServerCredentials> credentials_of(const daemon::config& c) {
    if (c.api.tls_cert.empty()) return grpc::InsecureServerCredentials();
    grpc::SslServerCredentialsOptions tls(c.api.tls_client_ca.empty()
                                              ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                              : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    tls.pem_key_cert_pairs.push_back({read_pem(c.api.tls_key, "tls_key"), read_pem(c.api.tls_cert, "tls_cert")});
    if (!c.api.tls_client_ca.empty()) tls.pem_root_certs = read_pem(c.api.tls_client_ca, "tls_client_ca");
    return grpc::SslServerCredentials(tls);
}

}  // namespace

api_server::api_server(const daemon::config& c, std::function<std::string()> metrics_text) {
    const auto where = daemon::parse_listen_address(c.api_listen(), "[api] listen");
    address_ = where.text();
    if (where.unix_socket) {
        // A socket left by a killed assemblerd would make the bind fail; assemblerd's instance lock says no
        // other one is running, so whatever is there is stale.
        socket_path_ = where.path;
        std::error_code ec;
        if (fs::is_socket(socket_path_, ec)) fs::remove(socket_path_, ec);
        else if (fs::exists(socket_path_, ec))
            throw input_error(fmt::format("[api] listen = \"{}\": {} exists and is not a socket", address_, socket_path_));
        fs::create_directories(fs::path(socket_path_).parent_path(), ec);
    }
    service_ = std::make_unique<proving_engine>(c, std::move(metrics_text), stopping_);
    grpc::ServerBuilder builder;
    builder.AddListeningPort(where.uri(), credentials_of(c), where.unix_socket ? nullptr : &port_);
    builder.RegisterService(service_.get());
    builder.SetMaxReceiveMessageSize(max_message_bytes);
    builder.SetMaxSendMessageSize(max_message_bytes);
    server_ = builder.BuildAndStart();
    if (!server_ || (!where.unix_socket && port_ == 0))
        throw input_error(fmt::format("[api] listen = \"{}\": cannot listen there (in use, or not an address of this "
                                      "host?)",
                                      address_));
    if (where.unix_socket) {
        // The service's group may connect (its members run Curio or `cuzk api`); nobody else.
        if (::chmod(socket_path_.c_str(), 0660) != 0)
            spdlog::warn("cannot make {} mode 0660: {}", socket_path_, std::strerror(errno));
    } else {
        address_ = daemon::listen_address{false, "", where.host, static_cast<std::uint16_t>(port_)}.text();
    }
    spdlog::info("API (cuzk.v1.ProvingEngine) serving on {} ({})", address_, c.api.tls_cert.empty() ? "plaintext" : "TLS");
}

api_server::~api_server() { stop(); }

void api_server::stop() {
    if (!server_) return;
    stopping_ = true;
    // Waiting calls see |stopping_| at their next turn (a second); a deadline bounds the rest.
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(3));
    server_->Wait();
    server_.reset();
    if (!socket_path_.empty()) {
        std::error_code ec;
        fs::remove(socket_path_, ec);
    }
}

}  // namespace cuzk::api
