#include "daemon/shutdown_signal.hpp"

#include <atomic>
#include <csignal>

namespace cuzk::daemon {

namespace {

// Lock-free, so that setting it from a signal handler is safe.
std::atomic<bool> stop_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_stop_signal(int) { stop_flag.store(true, std::memory_order_relaxed); }

}  // namespace

void install_shutdown_handlers() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGINT, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    // A file size limit (RLIMIT_FSIZE) then fails the write with EFBIG, handled as a full disk is, instead of
    // killing the daemon.
    std::signal(SIGXFSZ, SIG_IGN);
}

// Relaxed: the flag carries no data; loops only need to see it eventually (within one poll interval).
bool shutdown_requested() noexcept { return stop_flag.load(std::memory_order_relaxed); }
void request_shutdown() noexcept { stop_flag.store(true, std::memory_order_relaxed); }

}  // namespace cuzk::daemon
