#include "daemon/service_pulse.hpp"

#include "common/daemon/systemd_notify.hpp"

namespace cuzk::daemon {

service_pulse::service_pulse() : interval_(watchdog_interval()), last_(std::chrono::steady_clock::now()) {}

void service_pulse::tick() {
    if (!interval_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ >= *interval_ / 2) {
        notify_watchdog();
        last_ = now;
    }
}

}  // namespace cuzk::daemon
