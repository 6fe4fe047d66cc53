// Messages that worker threads want sent: ZeroMQ sockets belong to one thread (the daemon's loop), so workers
// queue here and the loop sends.
#pragma once

#include <mutex>
#include <vector>

#include "ipc/messages.hpp"

namespace cuzk::daemon {

class outbox {
public:
    void push(ipc::message m) {
        std::lock_guard lock(mutex_);
        pending_.push_back(std::move(m));
    }
    std::vector<ipc::message> take() {
        std::lock_guard lock(mutex_);
        return std::exchange(pending_, {});
    }

private:
    std::mutex mutex_;
    std::vector<ipc::message> pending_;
};

}  // namespace cuzk::daemon
