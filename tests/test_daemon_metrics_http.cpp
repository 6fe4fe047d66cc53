// The operator's HTTP endpoint: /metrics and /status from their callbacks with the content types Prometheus
// and JSON readers expect, 404 elsewhere, 405 for other methods, 500 with the message when a callback throws
// (and still serving after), a busy port refused naming the address, and port 0 taking a free port.
#include <gtest/gtest.h>

#include "common/util/errors.hpp"
#include "daemon/listen_address.hpp"
#include "daemon/metrics_http.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>

using namespace cuzk;

namespace {

class DaemonMetricsHttp : public ::testing::Test {
protected:
    std::atomic<bool> metrics_fail{false};
    std::atomic<int> status_calls{0};
    daemon::metrics_http sut{
        [this]() -> std::string {
            if (metrics_fail) throw std::runtime_error("registry unavailable: test failure");
            return "# TYPE cuzk_up gauge\ncuzk_up 1\n";
        },
        [this]() -> std::string {
            ++status_calls;
            return R"({"uptime_s":12})";
        }};
};

}  // namespace

TEST_F(DaemonMetricsHttp, ServesMetricsAndStatusOnAnyFreePort) {
    sut.start("127.0.0.1:0");
    ASSERT_GT(sut.port(), 0);
    httplib::Client client("127.0.0.1", sut.port());

    const auto metrics = client.Get("/metrics");
    ASSERT_TRUE(metrics) << httplib::to_string(metrics.error());
    EXPECT_EQ(metrics->status, 200);
    EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_EQ(metrics->body, "# TYPE cuzk_up gauge\ncuzk_up 1\n");

    const auto status = client.Get("/status");
    ASSERT_TRUE(status) << httplib::to_string(status.error());
    EXPECT_EQ(status->status, 200);
    EXPECT_EQ(status->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(status->body, R"({"uptime_s":12})");
    EXPECT_EQ(status_calls, 1);
}

TEST_F(DaemonMetricsHttp, OtherPathsAreNotFoundAndOtherMethodsNotAllowed) {
    sut.start("127.0.0.1:0");
    httplib::Client client("127.0.0.1", sut.port());
    const auto missing = client.Get("/metrics/extra");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404);
    EXPECT_NE(missing->body.find("/metrics/extra"), std::string::npos) << missing->body;
    const auto root = client.Get("/");
    ASSERT_TRUE(root);
    EXPECT_EQ(root->status, 404);

    const auto post = client.Post("/metrics", "x", "text/plain");
    ASSERT_TRUE(post);
    EXPECT_EQ(post->status, 405);
    EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
    const auto del = client.Delete("/status");
    ASSERT_TRUE(del);
    EXPECT_EQ(del->status, 405);
    EXPECT_EQ(status_calls, 0) << "a refused request ran the callback";
}

TEST_F(DaemonMetricsHttp, ACallbackThatThrowsAnswers500AndTheServerGoesOn) {
    sut.start("127.0.0.1:0");
    httplib::Client client("127.0.0.1", sut.port());
    metrics_fail = true;
    const auto failed = client.Get("/metrics");
    ASSERT_TRUE(failed);
    EXPECT_EQ(failed->status, 500);
    EXPECT_NE(failed->body.find("registry unavailable: test failure"), std::string::npos) << failed->body;
    metrics_fail = false;
    const auto again = client.Get("/metrics");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 200);
}

TEST_F(DaemonMetricsHttp, ABusyPortIsRefusedNamingTheAddress) {
    sut.start("127.0.0.1:0");
    const auto address = fmt::format("127.0.0.1:{}", sut.port());
    daemon::metrics_http second([] { return std::string(); }, [] { return std::string(); });
    try {
        second.start(address);
        FAIL() << "a second server bound " << address << " while the first serves it";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(address + ": cannot listen: Address already in use", 0), 0u) << what;
    }
    EXPECT_EQ(second.port(), 0);
    // The first one is undisturbed.
    httplib::Client client("127.0.0.1", sut.port());
    const auto metrics = client.Get("/metrics");
    ASSERT_TRUE(metrics);
    EXPECT_EQ(metrics->status, 200);
}

TEST_F(DaemonMetricsHttp, StopsPromptlyWithAKeptAliveConnectionAndRestartsOnTheSamePort) {
    sut.start("127.0.0.1:0");
    const int port = sut.port();
    httplib::Client client("127.0.0.1", port);
    client.set_keep_alive(true);  // as Prometheus scrapes: the connection stays open between requests
    ASSERT_TRUE(client.Get("/metrics"));
    const auto before = std::chrono::steady_clock::now();
    sut.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(3));
    EXPECT_EQ(sut.port(), 0);
    sut.stop();  // a second stop is a no-op

    sut.start(fmt::format("127.0.0.1:{}", port));
    EXPECT_EQ(sut.port(), port);
    httplib::Client fresh("127.0.0.1", port);
    const auto metrics = fresh.Get("/metrics");
    ASSERT_TRUE(metrics);
    EXPECT_EQ(metrics->status, 200);
    EXPECT_THROW(sut.start("127.0.0.1:0"), std::logic_error);
}

TEST_F(DaemonMetricsHttp, AddressesThatDoNotParseAreNamed) {
    for (const std::string text : {"localhost", "unix:///run/cuzk/m.sock", "example.com:9821", ":9821", "127.0.0.1:", "127.0.0.1:port", "127.0.0.1:70000", "::1:9821",
                                   "[::1]9821", "[::1:9821", ""}) {
        try {
            daemon::parse_listen_address(text, "[metrics] listen", false);
            ADD_FAILURE() << "'" << text << "' parsed";
        } catch (const input_error& e) {
            EXPECT_NE(std::string(e.what()).find("[metrics] listen = \"" + text + "\""), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW(sut.start("localhost"), input_error);
    const auto v6 = daemon::parse_listen_address("[::1]:9821", "[metrics] listen", false);
    EXPECT_EQ(v6.host, "::1");
    EXPECT_EQ(v6.port, 9821);
    const auto v4 = daemon::parse_listen_address("0.0.0.0:0", "[metrics] listen", false);
    EXPECT_EQ(v4.host, "0.0.0.0");
    EXPECT_EQ(v4.port, 0);
}

TEST_F(DaemonMetricsHttp, AHostThatIsNotLocalIsRefusedWithTheReason) {
    try {
        sut.start("192.0.2.1:0");  // TEST-NET-1: never an address of this machine
        FAIL() << "bound an address this machine does not have";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("192.0.2.1:0: cannot listen: ", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("assign requested address"), std::string::npos) << e.what();
    }
}
