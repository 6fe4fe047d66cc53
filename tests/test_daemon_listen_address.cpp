// Where the API and the metrics listen, and who may call the API over TCP: parse_listen_address (unix:// paths,
// host:port, [v6]:port; every refusal names the key and the text), loopback(), the gRPC and the operator's forms,
// [api] allow_from's CIDR lists (byte and bit prefixes, IPv4-mapped peers), and the peer address gRPC reports.
#include <gtest/gtest.h>

#include <string>

#include "common/util/errors.hpp"
#include "daemon/listen_address.hpp"

using namespace cuzk;
using daemon::listen_address;
using daemon::network_list;
using daemon::parse_listen_address;

namespace {

// The message parse_listen_address refuses |text| with; "" when it accepts it.
std::string refusal_of(const std::string& text, bool allow_unix = true) {
    try {
        (void)parse_listen_address(text, "[api] listen", allow_unix);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

std::string list_refusal_of(const std::string& text) {
    try {
        (void)network_list::parse(text, "[api] allow_from");
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

listen_address tcp(const std::string& host) {
    listen_address a;
    a.host = host;
    a.port = 1;
    return a;
}

}  // namespace

TEST(DaemonListenAddress, UnixSocketsTakeAnAbsolutePath) {
    const auto a = parse_listen_address("unix:///run/cuzk/cuzk.sock", "[api] listen");
    EXPECT_TRUE(a.unix_socket);
    EXPECT_EQ(a.path, "/run/cuzk/cuzk.sock");
    EXPECT_TRUE(a.loopback());
    EXPECT_EQ(a.uri(), "unix:/run/cuzk/cuzk.sock");
    EXPECT_EQ(a.text(), "unix:///run/cuzk/cuzk.sock");

    const auto short_form = parse_listen_address("unix:/tmp/x.sock", "[api] listen");
    EXPECT_TRUE(short_form.unix_socket);
    EXPECT_EQ(short_form.path, "/tmp/x.sock");
    EXPECT_EQ(short_form.text(), "unix:///tmp/x.sock");

    for (const std::string relative : {"unix://run/cuzk.sock", "unix:cuzk.sock", "unix://", "unix:"}) {
        const auto e = refusal_of(relative);
        EXPECT_NE(e.find("[api] listen = \"" + relative + "\": the socket path must be absolute"), std::string::npos)
            << relative << ": " << e;
    }
}

TEST(DaemonListenAddress, AUnixSocketPathLongerThanSunPathIsRefused) {
    const std::string fits = "/" + std::string(106, 'a');  // 107 bytes and the terminating zero: sun_path's 108
    EXPECT_EQ(parse_listen_address("unix://" + fits, "[api] listen").path, fits);
    const auto e = refusal_of("unix://" + fits + "a");
    EXPECT_NE(e.find("[api] listen = \"unix://" + fits + "a\": the socket path is longer than the 107 bytes"),
              std::string::npos)
        << e;
}

TEST(DaemonListenAddress, AUnixSocketIsRefusedWhereOnlyTcpServes) {
    const auto e = refusal_of("unix:///x", false);
    EXPECT_NE(e.find("[api] listen = \"unix:///x\": a Unix socket is not accepted here"), std::string::npos) << e;
}

TEST(DaemonListenAddress, TcpAddressesAreIpAddressesOrLocalhostWithAPort) {
    const auto v4 = parse_listen_address("127.0.0.1:9820", "[api] listen");
    EXPECT_FALSE(v4.unix_socket);
    EXPECT_EQ(v4.host, "127.0.0.1");
    EXPECT_EQ(v4.port, 9820);
    EXPECT_EQ(v4.uri(), "127.0.0.1:9820");
    EXPECT_EQ(v4.text(), "127.0.0.1:9820");

    const auto v6 = parse_listen_address("[::1]:9820", "[api] listen");
    EXPECT_EQ(v6.host, "::1");
    EXPECT_EQ(v6.port, 9820);
    EXPECT_EQ(v6.uri(), "[::1]:9820");
    EXPECT_EQ(v6.text(), "[::1]:9820");

    const auto named = parse_listen_address("localhost:1", "[api] listen");
    EXPECT_EQ(named.host, "localhost");
    EXPECT_EQ(named.port, 1);
    EXPECT_EQ(named.uri(), "localhost:1");

    const auto any = parse_listen_address("0.0.0.0:0", "[api] listen");  // port 0: any free one
    EXPECT_EQ(any.host, "0.0.0.0");
    EXPECT_EQ(any.port, 0);
    EXPECT_EQ(parse_listen_address("127.0.0.1:65535", "[api] listen").port, 65535);
}

TEST(DaemonListenAddress, MistakesNameTheKeyAndTheText) {
    const struct {
        std::string text, why;
    } cases[] = {
        {"example.com:9820", "'example.com' is not an IP address (or localhost)"},
        {"cuzk-host:9820", "'cuzk-host' is not an IP address (or localhost)"},
        {"127.0.0.1:65536", "'65536' is not a port (0..65535)"},
        {"127.0.0.1:-1", "'-1' is not a port (0..65535)"},
        {"127.0.0.1:98x", "'98x' is not a port (0..65535)"},
        {"127.0.0.1:", "'' is not a port (0..65535)"},
        {"127.0.0.1", "expected unix://<path> or host:port"},
        {"[::1]", "expected [IPv6 address]:port"},
        {"[::1]9820", "expected [IPv6 address]:port"},
        {"[::1]:", "'' is not a port (0..65535)"},
        {"::1:9820", "write an IPv6 address in brackets: [::1]:9820"},
        {"", "expected unix://<path> or host:port"},
    };
    for (const auto& c : cases) {
        const auto e = refusal_of(c.text);
        EXPECT_NE(e.find("[api] listen = \"" + c.text + "\": " + c.why), std::string::npos) << c.text << ": " << e;
    }
}

TEST(DaemonListenAddress, LoopbackIsAUnixSocket127SlashEightTheV6LoopbackOrLocalhost) {
    for (const std::string host : {"127.0.0.1", "127.255.0.9", "::1", "localhost", "::ffff:127.0.0.1"})
        EXPECT_TRUE(tcp(host).loopback()) << host;
    listen_address unix_socket;
    unix_socket.unix_socket = true;
    unix_socket.path = "/run/cuzk/cuzk.sock";
    EXPECT_TRUE(unix_socket.loopback());
    for (const std::string host : {"10.0.0.1", "0.0.0.0", "::", "128.0.0.1", "fd00::1", "::2", "example.com", ""})
        EXPECT_FALSE(tcp(host).loopback()) << host;
}

TEST(DaemonListenAddress, NetworkListsMatchByPrefix) {
    const auto eight = network_list::parse("10.0.0.0/8", "[api] allow_from");
    EXPECT_FALSE(eight.empty());
    EXPECT_TRUE(eight.contains("10.0.0.0"));
    EXPECT_TRUE(eight.contains("10.255.255.255"));
    EXPECT_FALSE(eight.contains("11.0.0.1"));
    EXPECT_FALSE(eight.contains("9.255.255.255"));

    const auto host = network_list::parse("192.168.1.7/32", "[api] allow_from");
    EXPECT_TRUE(host.contains("192.168.1.7"));
    EXPECT_FALSE(host.contains("192.168.1.8"));
    const auto bare = network_list::parse("192.168.1.7", "[api] allow_from");  // a bare address is a /32
    EXPECT_TRUE(bare.contains("192.168.1.7"));
    EXPECT_FALSE(bare.contains("192.168.1.6"));

    // Within a byte: 10.0.0.0/12 ends at 10.15.255.255.
    const auto twelve = network_list::parse("10.0.0.0/12", "[api] allow_from");
    EXPECT_TRUE(twelve.contains("10.15.255.255"));
    EXPECT_FALSE(twelve.contains("10.16.0.0"));

    // Every IPv4 address, and no IPv6 one.
    const auto every_v4 = network_list::parse("0.0.0.0/0", "[api] allow_from");
    EXPECT_TRUE(every_v4.contains("203.0.113.9"));
    EXPECT_TRUE(every_v4.contains("127.0.0.1"));
    EXPECT_FALSE(every_v4.contains("fd00::1"));
    EXPECT_FALSE(every_v4.contains("::1"));
}

TEST(DaemonListenAddress, Ipv6NetworksAndIpv4MappedPeers) {
    const auto sixty_four = network_list::parse("fd00::/64", "[api] allow_from");
    EXPECT_TRUE(sixty_four.contains("fd00::2"));
    EXPECT_TRUE(sixty_four.contains("fd00::ffff:ffff:ffff:ffff"));
    EXPECT_FALSE(sixty_four.contains("fd00:0:0:1::2"));
    EXPECT_FALSE(sixty_four.contains("10.0.0.1"));

    const auto one = network_list::parse("fd00::2/128", "[api] allow_from");
    EXPECT_TRUE(one.contains("fd00::2"));
    EXPECT_FALSE(one.contains("fd00::3"));
    EXPECT_TRUE(network_list::parse("fd00::2", "[api] allow_from").contains("fd00::2"));  // a bare one: /128

    const auto link_local = network_list::parse("fe80::/10", "[api] allow_from");
    EXPECT_TRUE(link_local.contains("febf::1"));
    EXPECT_FALSE(link_local.contains("fec0::1"));

    // A dual-stack socket reports an IPv4 client as ::ffff:a.b.c.d.
    const auto v4 = network_list::parse("10.0.0.0/8", "[api] allow_from");
    EXPECT_TRUE(v4.contains("::ffff:10.1.2.3"));
    EXPECT_FALSE(v4.contains("::ffff:11.1.2.3"));
}

TEST(DaemonListenAddress, ListsAreCommaSeparatedAndMayBeEmpty) {
    const auto two = network_list::parse(" 10.0.0.0/8 ,\t192.168.0.0/16,fd00::/8 ", "[api] allow_from");
    EXPECT_TRUE(two.contains("10.9.9.9"));
    EXPECT_TRUE(two.contains("192.168.200.1"));
    EXPECT_TRUE(two.contains("fd12::1"));
    EXPECT_FALSE(two.contains("172.16.0.1"));
    EXPECT_FALSE(two.contains("not an address"));
    EXPECT_FALSE(two.contains(""));
    EXPECT_TRUE(network_list::parse("", "[api] allow_from").empty());
    EXPECT_TRUE(network_list::parse(" , ,", "[api] allow_from").empty());
    EXPECT_FALSE(network_list::parse("", "[api] allow_from").contains("10.0.0.1"));
}

TEST(DaemonListenAddress, BadNetworksAreNamed) {
    const struct {
        std::string text, why;
    } cases[] = {
        {"10.0.0.0/33", "'10.0.0.0/33' has a bad prefix length (0..32)"},
        {"fd00::/129", "'fd00::/129' has a bad prefix length (0..128)"},
        {"10.0.0.0/", "'10.0.0.0/' has a bad prefix length (0..32)"},
        {"10.0.0.0/8x", "'10.0.0.0/8x' has a bad prefix length (0..32)"},
        {"10.0.0.0/-1", "'10.0.0.0/-1' has a bad prefix length (0..32)"},
        {"10.0.0/8", "'10.0.0/8' is not an IP address or CIDR network"},
        {"example.com", "'example.com' is not an IP address or CIDR network"},
        {"10.0.0.0/8, lan", "'lan' is not an IP address or CIDR network"},
    };
    for (const auto& c : cases) {
        const auto e = list_refusal_of(c.text);
        EXPECT_NE(e.find("[api] allow_from: " + c.why), std::string::npos) << c.text << ": " << e;
    }
}

TEST(DaemonListenAddress, PeerIpIsTheAddressOfAGrpcPeer) {
    EXPECT_EQ(daemon::peer_ip("ipv4:10.1.2.3:5555"), "10.1.2.3");
    EXPECT_EQ(daemon::peer_ip("ipv6:[::1]:5555"), "::1");
    EXPECT_EQ(daemon::peer_ip("ipv6:%5B::1%5D:5555"), "::1");
    EXPECT_EQ(daemon::peer_ip("ipv6:%5B::ffff:10.1.2.3%5D:5555"), "::ffff:10.1.2.3");
    // A link-local peer carries its zone (the interface index, "%25" escaped): allow_from matches the address.
    EXPECT_EQ(daemon::peer_ip("ipv6:%5Bfe80::fc:ff:fe00:1%254%5D:60628"), "fe80::fc:ff:fe00:1");
    EXPECT_EQ(daemon::peer_ip("ipv6:[fe80::1%eth0]:5555"), "fe80::1");
    EXPECT_EQ(daemon::peer_ip("unix:/run/cuzk/cuzk.sock"), "");
    EXPECT_EQ(daemon::peer_ip("unix:"), "");
    EXPECT_EQ(daemon::peer_ip(""), "");
}
