// Messages that worker threads want sent: ZeroMQ sockets belong to one thread (the daemon's loop), so workers
// queue here and the loop sends. An eventfd wakes the loop (it polls fd() beside its sockets), so a proof
// leaves at once instead of at the loop's next timeout.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ipc/messages.hpp"

namespace cuzk::daemon {

class outbox {
public:
    outbox() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
        if (fd_ < 0) throw std::runtime_error("eventfd failed: cannot create the outbox wake-up");
    }
    ~outbox() { ::close(fd_); }
    outbox(const outbox&) = delete;
    outbox& operator=(const outbox&) = delete;

    int fd() const noexcept { return fd_; }

    void push(ipc::message m) {
        {
            std::lock_guard lock(mutex_);
            pending_.push_back(std::move(m));
        }
        const std::uint64_t one = 1;
        (void)!::write(fd_, &one, sizeof one);
    }
    std::vector<ipc::message> take() {
        std::uint64_t count = 0;
        (void)!::read(fd_, &count, sizeof count);  // reset before taking: a push after this wakes the loop again
        std::lock_guard lock(mutex_);
        return std::exchange(pending_, {});
    }

private:
    int fd_;
    std::mutex mutex_;
    std::vector<ipc::message> pending_;
};

}  // namespace cuzk::daemon
