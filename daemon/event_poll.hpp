// zmq::poll for a daemon loop: a signal (SIGTERM) interrupting the wait is a normal wake-up (EINTR), not an
// error, so the loop sees the shutdown flag on its next turn.
#pragma once

#include <chrono>
#include <cerrno>

#include <zmq.hpp>

namespace cuzk::daemon {

inline void poll_once(zmq::pollitem_t* items, std::size_t count, std::chrono::milliseconds timeout) {
    try {
        zmq::poll(items, count, timeout);
    } catch (const zmq::error_t& e) {
        if (e.num() != EINTR) throw;
    }
}

}  // namespace cuzk::daemon
