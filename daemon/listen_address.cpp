#include "daemon/listen_address.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <optional>

#include "common/util/errors.hpp"
#include "daemon/comma_list.hpp"

namespace cuzk::daemon {

namespace {

// IPv4 (mapped into ::ffff:0:0/96) or IPv6, as 16 bytes.
std::optional<std::array<std::uint8_t, 16>> parse_ip(std::string_view text) {
    const std::string s(text);
    std::array<std::uint8_t, 16> out{};
    in_addr v4{};
    if (::inet_pton(AF_INET, s.c_str(), &v4) == 1) {
        out[10] = out[11] = 0xff;
        std::memcpy(out.data() + 12, &v4, 4);
        return out;
    }
    in6_addr v6{};
    if (::inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
        std::memcpy(out.data(), &v6, 16);
        return out;
    }
    return std::nullopt;
}

bool is_v4_mapped(const std::array<std::uint8_t, 16>& a) {
    for (int i = 0; i < 10; ++i)
        if (a[i]) return false;
    return a[10] == 0xff && a[11] == 0xff;
}

}  // namespace

bool listen_address::loopback() const {
    if (unix_socket || host == "localhost") return true;
    const auto ip = parse_ip(host);
    if (!ip) return false;
    if (is_v4_mapped(*ip)) return (*ip)[12] == 127;
    std::array<std::uint8_t, 16> one{};
    one[15] = 1;
    return *ip == one;
}

std::string listen_address::uri() const {
    if (unix_socket) return "unix:" + path;
    return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
}

std::string listen_address::text() const { return unix_socket ? "unix://" + path : uri(); }

listen_address parse_listen_address(std::string_view text, std::string_view key, bool allow_unix) {
    const auto fail = [&](std::string_view why) {
        throw input_error(fmt::format("{} = \"{}\": {}", key, text, why));
    };
    listen_address a;
    if (text.starts_with("unix://") || text.starts_with("unix:")) {
        if (!allow_unix) fail("a Unix socket is not accepted here: give host:port");
        a.unix_socket = true;
        a.path = std::string(text.substr(text.starts_with("unix://") ? 7 : 5));
        if (a.path.empty() || a.path.front() != '/') fail("the socket path must be absolute (unix:///run/cuzk/cuzk.sock)");
        if (a.path.size() > 107) fail("the socket path is longer than the 107 bytes a Unix socket address holds");
        return a;
    }
    std::string_view host, port;
    if (text.starts_with("[")) {
        const auto close = text.find(']');
        if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
            fail("expected [IPv6 address]:port");
        host = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else {
        const auto colon = text.rfind(':');
        if (colon == std::string_view::npos) fail("expected unix://<path> or host:port");
        host = text.substr(0, colon);
        port = text.substr(colon + 1);
        if (host.find(':') != std::string_view::npos) fail("write an IPv6 address in brackets: [::1]:9820");
    }
    if (host != "localhost" && !parse_ip(host)) fail(fmt::format("'{}' is not an IP address (or localhost)", host));
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535)
        fail(fmt::format("'{}' is not a port (0..65535)", port));
    a.host = std::string(host);
    a.port = static_cast<std::uint16_t>(value);
    return a;
}

network_list network_list::parse(std::string_view text, std::string_view key) {
    network_list out;
    for (const auto item : comma_list(text)) {
        const auto slash = item.find('/');
        const auto ip = parse_ip(item.substr(0, slash));
        if (!ip) throw input_error(fmt::format("{}: '{}' is not an IP address or CIDR network", key, item));
        const bool v4 = item.substr(0, slash).find(':') == std::string_view::npos;
        unsigned bits = v4 ? 32 : 128;
        if (slash != std::string_view::npos) {
            const auto p = item.substr(slash + 1);
            const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), bits);
            if (p.empty() || ec != std::errc() || end != p.data() + p.size() || bits > (v4 ? 32u : 128u))
                throw input_error(fmt::format("{}: '{}' has a bad prefix length (0..{})", key, item, v4 ? 32 : 128));
        }
        out.networks_.push_back({*ip, v4 ? bits + 96 : bits});
    }
    return out;
}

bool network_list::contains(std::string_view address) const {
    const auto ip = parse_ip(address);
    if (!ip) return false;
    for (const auto& n : networks_) {
        bool match = true;
        for (unsigned bit = 0; bit < n.prefix && match; bit += 8) {
            const unsigned take = std::min(8u, n.prefix - bit);
            const auto mask = static_cast<std::uint8_t>(0xff << (8 - take));
            match = ((*ip)[bit / 8] & mask) == (n.bytes[bit / 8] & mask);
        }
        if (match) return true;
    }
    return false;
}

std::string peer_ip(std::string_view peer) {
    if (peer.starts_with("ipv4:")) {
        peer.remove_prefix(5);
        return std::string(peer.substr(0, peer.rfind(':')));
    }
    if (peer.starts_with("ipv6:")) {
        peer.remove_prefix(5);
        if (peer.starts_with("%5B") || peer.starts_with("[")) {
            const bool escaped = peer.starts_with("%5B");
            peer.remove_prefix(escaped ? 3 : 1);
            const auto host = peer.substr(0, peer.find(escaped ? "%5D" : "]"));
            return std::string(host.substr(0, host.find('%')));  // a link-local address without its zone ("%25<if>")
        }
        return std::string(peer.substr(0, peer.rfind(':')));
    }
    return {};
}

}  // namespace cuzk::daemon
