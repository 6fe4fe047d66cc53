// What a daemon's main loop calls every turn: the systemd watchdog ping at half its interval (when the unit
// sets WatchdogSec), so a stage whose loop hangs is restarted by systemd.
#pragma once

#include <chrono>
#include <optional>

namespace cuzk::daemon {

class service_pulse {
public:
    service_pulse();
    void tick();

private:
    std::optional<std::chrono::microseconds> interval_;
    std::chrono::steady_clock::time_point last_;
};

}  // namespace cuzk::daemon
