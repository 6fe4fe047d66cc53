// The systemd notification protocol (sd_notify): readiness, stopping, status text and the watchdog
// of a Type=notify unit. Outside systemd (no NOTIFY_SOCKET) every call is a no-op, so daemons call
// them unconditionally.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace cuzk::daemon {

void notify_ready();                       // READY=1: the stage accepts work (units wait for this)
void notify_stopping();                    // STOPPING=1: shutdown has begun
void notify_status(std::string_view text);  // STATUS=<text>, shown by systemctl status

// The watchdog interval systemd expects pings within (WATCHDOG_USEC), when the watchdog is enabled
// for this process (WATCHDOG_PID unset or equal to our pid); nullopt otherwise. Ping at half of it.
std::optional<std::chrono::microseconds> watchdog_interval();
void notify_watchdog();  // WATCHDOG=1

}  // namespace cuzk::daemon
