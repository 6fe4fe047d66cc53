// Who may call the API (the daemons running, CPU backend): the default Unix socket and assemblerd's request socket
// are the service group's (0660, in a 0750 runtime directory) while the sockets between the stages are the owner's
// (0600); with [api] tls_cert/tls_key
// only TLS clients that trust the certificate get through, and with tls_client_ca only those presenting a
// certificate signed by it; a TCP peer outside [api] allow_from is refused (PERMISSION_DENIED, logged) while
// loopback always passes (IPv6 peers too: a link-local one is matched without its zone); a listen address open
// to other hosts without allow_from stops assemblerd at start.
// The certificates are made here with OpenSSL's C API (EC P-256, valid for a day).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "api/api_client.hpp"
#include "api/submission.hpp"
#include "daemon/listen_address.hpp"
#include "daemon/test_job_input.hpp"
#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;
namespace fs = std::filesystem;

namespace {

// A key pair and its X.509 certificate: self-signed, or signed by |issuer|.
class certificate {
public:
    // |alt_names| as in openssl.cnf ("DNS:localhost,IP:127.0.0.1"); empty for none.
    certificate(const std::string& common_name, const std::string& alt_names, bool ca, const certificate* issuer = nullptr)
        : key_(EVP_EC_gen("P-256"), EVP_PKEY_free), cert_(X509_new(), X509_free) {
        static long serial = 1;
        X509* x = cert_.get();
        X509_set_version(x, 2);
        ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
        X509_gmtime_adj(X509_getm_notBefore(x), -3600);
        X509_gmtime_adj(X509_getm_notAfter(x), 24 * 3600);
        X509_set_pubkey(x, key_.get());
        X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
        const certificate& signer = issuer ? *issuer : *this;
        X509_set_issuer_name(x, X509_get_subject_name(signer.cert_.get()));
        X509V3_CTX ctx;
        X509V3_set_ctx_nodb(&ctx);
        X509V3_set_ctx(&ctx, signer.cert_.get(), x, nullptr, nullptr, 0);
        add_extension(ctx, NID_basic_constraints, ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
        add_extension(ctx, NID_key_usage, ca ? "critical,keyCertSign,cRLSign,digitalSignature" : "critical,digitalSignature");
        add_extension(ctx, NID_subject_key_identifier, "hash");
        if (!alt_names.empty()) add_extension(ctx, NID_subject_alt_name, alt_names);
        if (!ca) add_extension(ctx, NID_ext_key_usage, "serverAuth,clientAuth");
        ok_ = X509_sign(x, signer.key_.get(), EVP_sha256()) > 0;
    }

    bool ok() const { return ok_ && key_ && cert_; }
    std::string cert_pem() const {
        return pem([&](BIO* b) { return PEM_write_bio_X509(b, cert_.get()); });
    }
    std::string key_pem() const {
        return pem([&](BIO* b) { return PEM_write_bio_PrivateKey(b, key_.get(), nullptr, nullptr, 0, nullptr, nullptr); });
    }

private:
    void add_extension(X509V3_CTX& ctx, int nid, const std::string& value) {
        X509_EXTENSION* e = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
        ok_ = ok_ && e && X509_add_ext(cert_.get(), e, -1) == 1;
        X509_EXTENSION_free(e);
    }
    template <class F>
    static std::string pem(F&& write) {
        std::unique_ptr<BIO, decltype(&BIO_free)> b(BIO_new(BIO_s_mem()), BIO_free);
        if (!b || write(b.get()) != 1) return "";
        char* data = nullptr;
        const long n = BIO_get_mem_data(b.get(), &data);
        return std::string(data, static_cast<std::size_t>(n));
    }

    bool ok_ = true;
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key_;
    std::unique_ptr<X509, decltype(&X509_free)> cert_;
};

// A TCP port nobody listens on now: bound to port 0, then closed.
int free_port(const char* address = "127.0.0.1") {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    ::inet_pton(AF_INET, address, &a.sin_addr);
    socklen_t length = sizeof a;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) == 0)
        port = ntohs(a.sin_port);
    ::close(fd);
    return port;
}

// An IPv4 address of this host other than loopback, on an interface that is up; "" when there is none.
std::string non_loopback_ipv4() {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) return "";
    std::string found;
    for (const ifaddrs* i = list; i && found.empty(); i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
            continue;
        char text[INET_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
        if (!std::string(text).starts_with("127.")) found = text;
    }
    ::freeifaddrs(list);
    return found;
}

struct host_ipv6 {
    std::string routable;  // neither loopback nor link-local
    std::string link_local, link_local_interface;
};

host_ipv6 ipv6_addresses() {
    host_ipv6 out;
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) return out;
    for (const ifaddrs* i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET6 || !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
            continue;
        const auto& a = reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr;
        char text[INET6_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET6, &a, text, sizeof text);
        if (IN6_IS_ADDR_LOOPBACK(&a) || IN6_IS_ADDR_V4MAPPED(&a)) continue;
        if (IN6_IS_ADDR_LINKLOCAL(&a)) {
            if (out.link_local.empty()) {
                out.link_local = text;
                out.link_local_interface = i->ifa_name;
            }
        } else if (out.routable.empty()) {
            out.routable = text;
        }
    }
    ::freeifaddrs(list);
    return out;
}

// PEM files of a test, removed with it.
class pem_files {
public:
    pem_files() : dir_(fs::temp_directory_path() / fmt::format("cuzk-tls-{}-{}", ::getpid(), counter_++)) {
        fs::create_directories(dir_);
    }
    ~pem_files() { fs::remove_all(dir_); }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(dir_ / name) << text;
        return (dir_ / name).string();
    }

private:
    static inline int counter_ = 0;
    fs::path dir_;
};

std::unique_ptr<v1::ProvingEngine::Stub> tls_client(const std::string& address, const std::string& trusted_pem,
                                                    const certificate* client = nullptr) {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = trusted_pem;
    if (client) {
        tls.pem_private_key = client->key_pem();
        tls.pem_cert_chain = client->cert_pem();
    }
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // a channel of its own: no handshake shared across clients
    return v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(address, grpc::SslCredentials(tls), args));
}

grpc::Status get_status(v1::ProvingEngine::Stub& stub, std::chrono::seconds limit = std::chrono::seconds(5)) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + limit);
    v1::GetStatusResponse reply;
    return stub.GetStatus(&ctx, v1::GetStatusRequest{}, &reply);
}

std::string described(const grpc::Status& s) {
    return fmt::format("gRPC status {}: {}", static_cast<int>(s.error_code()), s.error_message());
}

std::string tls_config(const std::string& listen, const std::string& cert, const std::string& key,
                       const std::string& client_ca = "") {
    return fmt::format("[api]\nlisten = \"{}\"\ntls_cert = \"{}\"\ntls_key = \"{}\"\n{}", listen, cert, key,
                       client_ca.empty() ? "" : fmt::format("tls_client_ca = \"{}\"\n", client_ca));
}

mode_t mode_of(const fs::path& path) {
    struct stat s {};
    if (::stat(path.c_str(), &s) != 0) return 0;
    return s.st_mode;
}

}  // namespace

TEST(PipelineApiAccess, TheDefaultSocketIsTheGroupsAndTheStagesSocketsTheOwners) {
    pipeline sut({.gpud_backend = "cpu"});
    sut.start_all();
    const auto rt = sut.config().runtime.dir;
    const auto api = sut.config().api_listen();
    ASSERT_EQ(api, "unix://" + (rt / "cuzk.sock").string());

    const auto socket = mode_of(rt / "cuzk.sock");
    EXPECT_TRUE(S_ISSOCK(socket)) << std::oct << socket;
    EXPECT_EQ(socket & 07777, 0660u) << std::oct << (socket & 07777);
    const auto dir = mode_of(rt);
    EXPECT_TRUE(S_ISDIR(dir));
    EXPECT_EQ(dir & 07777, 0750u) << std::oct << (dir & 07777);
    // assemblerd's request socket is the front door too (SUBMIT, AWAIT, CANCEL, STATUS_REQUEST: `cuzk` of a
    // group member); the sockets between the stages are the owner's.
    const auto front = mode_of(rt / "assemblerd.sock");
    EXPECT_TRUE(S_ISSOCK(front));
    EXPECT_EQ(front & 07777, 0660u) << std::oct << (front & 07777);
    for (const auto* stage : {"assemblerd-results.sock", "synthd.sock", "gpud-0.sock"}) {
        const auto m = mode_of(rt / stage);
        EXPECT_TRUE(S_ISSOCK(m)) << stage;
        EXPECT_EQ(m & 07777, 0600u) << stage << ": " << std::oct << (m & 07777);
    }

    const auto status = get_status(*api::connect(api));
    EXPECT_TRUE(status.ok()) << described(status);
}

TEST(PipelineApiAccess, TlsServesClientsThatTrustTheCertificateAndRefusesPlaintext) {
    const certificate server("localhost", "DNS:localhost,IP:127.0.0.1", false);
    const certificate stranger("localhost", "DNS:localhost,IP:127.0.0.1", false);
    ASSERT_TRUE(server.ok() && stranger.ok());
    const pem_files files;
    const auto listen = fmt::format("127.0.0.1:{}", free_port());
    pipeline sut({.gpud_backend = "cpu",
                  .extra_config = tls_config(listen, files.write("api.crt", server.cert_pem()),
                                             files.write("api.key", server.key_pem()))});
    sut.start_all();
    EXPECT_NE(sut.log_of("assemblerd").find("serving on " + listen + " (TLS)"), std::string::npos)
        << sut.log_of("assemblerd");

    const auto trusting = tls_client(listen, server.cert_pem());
    const auto status = get_status(*trusting);
    EXPECT_TRUE(status.ok()) << described(status);

    // A whole proof over TLS: the test circuit kind (100), one partition, as Curio's Prove call.
    v1::ProveRequest request;
    auto* submit = request.mutable_submit();
    submit->set_request_id("tls-prove");
    submit->set_proof_kind(static_cast<v1::ProofKind>(api::test_circuit_kind));
    submit->set_vanilla_proof(daemon::test_job_input{"mul:64", 1, 7}.to_json());
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::ProveResponse reply;
    const auto proved = trusting->Prove(&ctx, request, &reply);
    ASSERT_TRUE(proved.ok()) << described(proved);
    ASSERT_EQ(reply.result().status(), v1::AwaitProofResponse::COMPLETED) << reply.result().error_message();
    ipc::await_reply_msg as_ipc;
    as_ipc.state = ipc::job_state::done;
    const auto& proof = reply.result().proof();
    as_ipc.proof.resize(proof.size());
    std::memcpy(as_ipc.proof.data(), proof.data(), proof.size());
    sut.expect_valid(as_ipc, "mul:64", 1, 7);

    const auto other_root = get_status(*tls_client(listen, stranger.cert_pem()), std::chrono::seconds(3));
    EXPECT_EQ(other_root.error_code(), grpc::StatusCode::UNAVAILABLE) << described(other_root);
    const auto plaintext = get_status(*api::connect(listen), std::chrono::seconds(3));
    EXPECT_EQ(plaintext.error_code(), grpc::StatusCode::UNAVAILABLE) << described(plaintext);
}

TEST(PipelineApiAccess, WithAClientCaOnlyCertificatesItSignedGetThrough) {
    const certificate server("localhost", "DNS:localhost,IP:127.0.0.1", false);
    const certificate client_ca("cuzk test client CA", "", true);
    const certificate curio("curio", "", false, &client_ca);
    const certificate self_signed("curio", "", false);
    ASSERT_TRUE(server.ok() && client_ca.ok() && curio.ok() && self_signed.ok());
    const pem_files files;
    const auto listen = fmt::format("127.0.0.1:{}", free_port());
    pipeline sut({.gpud_backend = "cpu",
                  .extra_config = tls_config(listen, files.write("api.crt", server.cert_pem()),
                                             files.write("api.key", server.key_pem()),
                                             files.write("clients.crt", client_ca.cert_pem()))});
    sut.start_all();

    const auto signed_by_ca = get_status(*tls_client(listen, server.cert_pem(), &curio));
    EXPECT_TRUE(signed_by_ca.ok()) << described(signed_by_ca);
    const auto without = get_status(*tls_client(listen, server.cert_pem()), std::chrono::seconds(3));
    EXPECT_EQ(without.error_code(), grpc::StatusCode::UNAVAILABLE) << described(without);
    const auto unknown = get_status(*tls_client(listen, server.cert_pem(), &self_signed), std::chrono::seconds(3));
    EXPECT_EQ(unknown.error_code(), grpc::StatusCode::UNAVAILABLE) << described(unknown);
}

TEST(PipelineApiAccess, PeersOutsideAllowFromAreRefusedAndLoggedLoopbackPasses) {
    const auto host = non_loopback_ipv4();
    if (host.empty()) GTEST_SKIP() << "this host has no IPv4 address other than loopback to call from";
    // A documentation network (RFC 5737) that does not hold this host's address.
    std::string elsewhere;
    for (const std::string net : {"192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"})
        if (elsewhere.empty() && !daemon::network_list::parse(net, "net").contains(host)) elsewhere = net;
    ASSERT_FALSE(elsewhere.empty()) << host;

    const int port = free_port("0.0.0.0");
    {
        pipeline sut({.gpud_backend = "cpu",
                      .extra_config = fmt::format("[api]\nlisten = \"0.0.0.0:{}\"\nallow_from = \"{}\"\n", port, elsewhere)});
        sut.start_all();
        const auto refused = get_status(*api::connect(fmt::format("{}:{}", host, port)));
        EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED) << described(refused);
        EXPECT_NE(refused.error_message().find(host + " is not allowed to call this service ([api] allow_from)"),
                  std::string::npos)
            << described(refused);
        const auto logged = pipeline::wait_for([&] {
            const auto log = sut.log_of("assemblerd");
            return log.find("API: GetStatus from ") != std::string::npos &&
                   log.find(host + ":") != std::string::npos &&
                   log.find("refused: not in [api] allow_from") != std::string::npos;
        }, std::chrono::seconds(5));
        EXPECT_TRUE(logged) << sut.log_of("assemblerd");

        const auto loopback = get_status(*api::connect(fmt::format("127.0.0.1:{}", port)));
        EXPECT_TRUE(loopback.ok()) << described(loopback);
    }
    // The same call from a network allow_from lists.
    const int other_port = free_port("0.0.0.0");
    pipeline sut({.gpud_backend = "cpu",
                  .extra_config = fmt::format("[api]\nlisten = \"0.0.0.0:{}\"\nallow_from = \"{}, {}/32\"\n",
                                              other_port, elsewhere, host)});
    sut.start_all();
    const auto allowed = get_status(*api::connect(fmt::format("{}:{}", host, other_port)));
    EXPECT_TRUE(allowed.ok()) << described(allowed);
}

TEST(PipelineApiAccess, AssemblerdRefusesAnOpenListenAddressWithoutAllowFrom) {
    pipeline sut({.gpud_backend = "cpu"});
    const auto open = sut.dir() / "open.toml";
    const auto listen = fmt::format("0.0.0.0:{}", free_port("0.0.0.0"));
    std::ofstream(open) << sut.config_text(sut.lock_name_of(0)) << "[api]\nlisten = \"" << listen << "\"\n";
    const auto r = test::run_command(fmt::format("{} --config {}", pipeline::binary("assemblerd"), open.string()));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("configuration error"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[api] listen = \"" + listen + "\" is reachable from other hosts: set [api] allow_from"),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(sut.config().runtime.dir / "assemblerd.sock"));
}

TEST(PipelineApiAccess, Ipv6PeersAreMatchedByAddressALinkLocalOneWithoutItsZone) {
    const auto v6 = ipv6_addresses();
    if (v6.routable.empty() || v6.link_local.empty())
        GTEST_SKIP() << "this host lacks an IPv6 address other than loopback and link-local, or a link-local one";
    const int port = free_port("0.0.0.0");
    pipeline sut({.gpud_backend = "cpu",
                  .extra_config = fmt::format("[api]\nlisten = \"[::]:{}\"\nallow_from = \"198.51.100.0/24, fe80::/10\"\n",
                                              port)});
    sut.start_all();
    const auto refused = get_status(*api::connect(fmt::format("[{}]:{}", v6.routable, port)));
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED) << described(refused);
    EXPECT_NE(refused.error_message().find(v6.routable + " is not allowed"), std::string::npos) << described(refused);
    // gRPC reports this peer as "ipv6:%5Bfe80::...%25<interface index>%5D:<port>".
    const auto link_local = get_status(*v1::ProvingEngine::NewStub(grpc::CreateChannel(
        fmt::format("ipv6:%5B{}%25{}%5D:{}", v6.link_local, v6.link_local_interface, port),
        grpc::InsecureChannelCredentials())));
    EXPECT_TRUE(link_local.ok()) << v6.link_local << "%" << v6.link_local_interface << ": " << described(link_local);
    const auto loopback = get_status(*api::connect(fmt::format("[::1]:{}", port)));
    EXPECT_TRUE(loopback.ok()) << described(loopback);
}
