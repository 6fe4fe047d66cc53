// Where a service listens ([api] listen, [metrics] listen) and who may call it over TCP ([api] allow_from).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::daemon {

struct listen_address {
    bool unix_socket = false;
    std::string path;  // unix socket
    std::string host;  // TCP: an IP address or "localhost"
    std::uint16_t port = 0;

    bool loopback() const;      // a Unix socket, or 127.0.0.0/8, ::1, localhost
    std::string uri() const;    // gRPC's form: "unix:<path>", "<host>:<port>", "[v6]:<port>"
    std::string text() const;   // as an operator writes it
};

// "unix://<absolute path>" or "host:port" / "[v6]:port" (port 0: any free one). Throws input_error that names
// |key| and the text.
listen_address parse_listen_address(std::string_view text, std::string_view key, bool allow_unix = true);

// A list of client networks (CIDR). An address matches when it is in one of them.
class network_list {
public:
    // "10.0.0.0/8, 192.168.1.7/32, fd00::/8"; a bare address is a /32 or /128. Throws input_error naming |key|.
    static network_list parse(std::string_view text, std::string_view key);
    bool empty() const noexcept { return networks_.empty(); }
    // |address|: an IPv4 or IPv6 address in text ("10.1.2.3", "::ffff:10.1.2.3" counts as the IPv4 one).
    bool contains(std::string_view address) const;

private:
    struct network {
        std::array<std::uint8_t, 16> bytes{};  // IPv4 as ::ffff:a.b.c.d
        unsigned prefix = 0;                   // in bits of the 16-byte form
    };
    std::vector<network> networks_;
};

// The IP address of a gRPC peer ("ipv4:10.1.2.3:5555", "ipv6:[::1]:5555"; a link-local one without its zone);
// empty for a Unix socket peer.
std::string peer_ip(std::string_view grpc_peer);

}  // namespace cuzk::daemon
