// sd_notify messages reach a real NOTIFY_SOCKET as systemd would receive them, the watchdog interval
// is read from WATCHDOG_USEC only for the process WATCHDOG_PID names, and without systemd every call
// is a harmless no-op.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "common/daemon/systemd_notify.hpp"

namespace fs = std::filesystem;
using namespace cuzk::daemon;

namespace {

// A datagram socket standing in for systemd's notification socket.
class notify_socket : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cuzk-notify-" + std::to_string(::getpid()));
        fs::create_directories(dir_);
        path_ = (dir_ / "notify").string();
        fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        ASSERT_GE(fd_, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        ASSERT_LT(path_.size(), sizeof addr.sun_path);
        std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
        ASSERT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        timeval tv{2, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        ::setenv("NOTIFY_SOCKET", path_.c_str(), 1);
    }
    void TearDown() override {
        ::unsetenv("NOTIFY_SOCKET");
        if (fd_ >= 0) ::close(fd_);
        fs::remove_all(dir_);
    }
    std::string receive() {
        char buf[512];
        ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
        return n < 0 ? std::string("<nothing>") : std::string(buf, static_cast<std::size_t>(n));
    }
    fs::path dir_;
    std::string path_;
    int fd_ = -1;
};

}  // namespace

TEST_F(notify_socket, ready_stopping_watchdog_and_status_arrive) {
    notify_ready();
    EXPECT_EQ(receive(), "READY=1");
    notify_status("proving job 7\npartition 3");
    EXPECT_EQ(receive(), "STATUS=proving job 7 partition 3");  // a newline would start a new assignment
    notify_watchdog();
    EXPECT_EQ(receive(), "WATCHDOG=1");
    notify_stopping();
    EXPECT_EQ(receive(), "STOPPING=1");
}

TEST(systemd_notify, without_notify_socket_calls_are_no_ops) {
    ::unsetenv("NOTIFY_SOCKET");
    notify_ready();
    notify_status("x");
    notify_watchdog();
    notify_stopping();
    SUCCEED();  // reaching here is the check: nothing threw or blocked
}

TEST(systemd_notify, watchdog_interval_follows_watchdog_usec_and_pid) {
    ::unsetenv("WATCHDOG_USEC");
    ::unsetenv("WATCHDOG_PID");
    EXPECT_FALSE(watchdog_interval().has_value());

    ::setenv("WATCHDOG_USEC", "30000000", 1);
    auto interval = watchdog_interval();
    ASSERT_TRUE(interval.has_value());
    EXPECT_EQ(interval->count(), 30'000'000);

    ::setenv("WATCHDOG_PID", std::to_string(::getpid()).c_str(), 1);
    interval = watchdog_interval();
    ASSERT_TRUE(interval.has_value());
    EXPECT_EQ(interval->count(), 30'000'000);

    // Meant for another process (e.g. the parent that exec'd us without clearing it): not ours.
    ::setenv("WATCHDOG_PID", std::to_string(::getpid() + 1).c_str(), 1);
    EXPECT_FALSE(watchdog_interval().has_value());

    ::unsetenv("WATCHDOG_USEC");
    ::unsetenv("WATCHDOG_PID");
}
