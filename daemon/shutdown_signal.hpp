// SIGTERM / SIGINT request a clean shutdown: the handler only sets a flag (async-signal-safe), which every
// daemon loop polls between short waits (<= 100 ms), then cleans up in reverse order of start.
#pragma once

namespace cuzk::daemon {

// Installs the handlers (SIGTERM, SIGINT) and ignores SIGPIPE (a peer gone is an error value, not a death).
void install_shutdown_handlers();
bool shutdown_requested() noexcept;
// For tests and fatal errors inside a daemon: as if a signal had arrived.
void request_shutdown() noexcept;

}  // namespace cuzk::daemon
