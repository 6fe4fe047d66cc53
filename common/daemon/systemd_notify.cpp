#include "common/daemon/systemd_notify.hpp"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace cuzk::daemon {

namespace {

void send(const std::string& state) {
    // unset_environment = 0: the watchdog and status messages need NOTIFY_SOCKET after READY=1.
    int r = sd_notify(0, state.c_str());
    if (r < 0) spdlog::warn("sd_notify(\"{}\") failed: {}", state, std::strerror(-r));
}

}  // namespace

void notify_ready() { send("READY=1"); }

void notify_stopping() { send("STOPPING=1"); }

void notify_status(std::string_view text) {
    // The protocol is newline-separated assignments: a newline in |text| would start a new one.
    std::string state = "STATUS=";
    for (char c : text) state.push_back(c == '\n' ? ' ' : c);
    send(state);
}

std::optional<std::chrono::microseconds> watchdog_interval() {
    std::uint64_t usec = 0;
    int r = sd_watchdog_enabled(0, &usec);
    if (r < 0) {
        spdlog::warn("systemd watchdog settings unreadable (WATCHDOG_USEC/WATCHDOG_PID): {}", std::strerror(-r));
        return std::nullopt;
    }
    if (r == 0 || usec == 0) return std::nullopt;
    return std::chrono::microseconds(static_cast<std::int64_t>(usec));
}

void notify_watchdog() { send("WATCHDOG=1"); }

}  // namespace cuzk::daemon
