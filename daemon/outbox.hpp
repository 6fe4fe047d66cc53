// Messages that worker threads want sent: ZeroMQ sockets belong to one thread (the daemon's loop), so workers
// queue here and the loop sends. An eventfd wakes the loop (it polls fd() beside its sockets), so a proof
// leaves at once instead of at the loop's next timeout. A message the socket refuses stays queued, first in
// line, and the loop sends it again on its next turn: nothing is dropped while the daemon runs.
#pragma once

#include <cstddef>
#include <mutex>
#include <string_view>
#include <vector>

#include <zmq.hpp>

#include "ipc/messages.hpp"

namespace cuzk::daemon {

class outbox {
public:
    outbox();
    ~outbox();
    outbox(const outbox&) = delete;
    outbox& operator=(const outbox&) = delete;

    int fd() const noexcept { return fd_; }

    // Any thread.
    void push(ipc::message m);

    // The loop's thread: sends the queue in order without blocking. A refused send (EAGAIN: the socket's
    // queue to a peer that is away is full) ends the call; that message and those after it stay queued for
    // the next call, which the loop's poll timeout brings. Returns how many stay queued.
    std::size_t send_to(zmq::socket_t& socket);

    // The loop's thread, at exit, after a last send_to: logs each message still queued as lost, with
    // |consequence| (what makes losing it safe), and empties the queue.
    void drop_unsent(std::string_view consequence);

private:
    int fd_;
    std::mutex mutex_;
    std::vector<ipc::message> pending_;
    bool refused_ = false;  // the loop's thread: the last send_to left messages queued (logged once per episode)
};

}  // namespace cuzk::daemon
