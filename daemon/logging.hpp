// Daemon logs: spdlog to stderr (the journal under systemd, which adds its own timestamps; the pattern keeps
// ours so that logs read outside the journal still merge with TIMELINE lines by time).
#pragma once

#include <string_view>

namespace cuzk::daemon {

// |stage| prefixes every line ("synthd", ...). |level| as in [runtime] log_level.
void setup_logging(std::string_view stage, std::string_view level);

}  // namespace cuzk::daemon
