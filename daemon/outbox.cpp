#include "daemon/outbox.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iterator>
#include <stdexcept>
#include <string>
#include <utility>

#include "ipc/message_socket.hpp"

namespace cuzk::daemon {

namespace {

// "PARTITION_PROOF job 7 partition 3": what a log line says was lost or held back.
std::string describe(const ipc::message& m) {
    return std::visit(
        [](const auto& body) {
            std::string text(ipc::to_string(body.type));
            if constexpr (requires { body.job_id; }) text += fmt::format(" job {}", body.job_id);
            if constexpr (requires { body.partition; }) text += fmt::format(" partition {}", body.partition);
            return text;
        },
        m);
}

}  // namespace

outbox::outbox() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error("eventfd failed: cannot create the outbox wake-up");
}

outbox::~outbox() { ::close(fd_); }

void outbox::push(ipc::message m) {
    {
        std::lock_guard lock(mutex_);
        pending_.push_back(std::move(m));
    }
    const std::uint64_t one = 1;
    (void)!::write(fd_, &one, sizeof one);  // fails only when the counter is saturated: the loop wakes anyway
}

std::size_t outbox::send_to(zmq::socket_t& socket) {
    std::uint64_t count = 0;
    (void)!::read(fd_, &count, sizeof count);  // reset before taking: a push after this wakes the loop again
    std::vector<ipc::message> batch;
    {
        std::lock_guard lock(mutex_);
        batch = std::exchange(pending_, {});
    }
    std::size_t sent = 0;
    while (sent < batch.size() && ipc::send_message(socket, batch[sent], zmq::send_flags::dontwait)) ++sent;
    if (sent == batch.size()) {
        if (refused_) {
            spdlog::info("{} takes messages again: the queued ones went out", socket.get(zmq::sockopt::last_endpoint));
        }
        refused_ = false;
        return 0;
    }
    const auto first = refused_ ? std::string() : describe(batch[sent]);
    std::size_t left = 0;
    {
        std::lock_guard lock(mutex_);
        // Ahead of what workers pushed meanwhile: the peer sees every message in the order it was pushed.
        pending_.insert(pending_.begin(), std::make_move_iterator(batch.begin() + static_cast<std::ptrdiff_t>(sent)),
                        std::make_move_iterator(batch.end()));
        left = pending_.size();
    }
    if (!refused_) {
        spdlog::warn("{} refuses messages (its queue to the peer is full: is the peer running?); {} kept, first "
                     "{}, sent again each turn",
                     socket.get(zmq::sockopt::last_endpoint), left, first);
    }
    refused_ = true;
    return left;
}

void outbox::drop_unsent(std::string_view consequence) {
    std::vector<ipc::message> lost;
    {
        std::lock_guard lock(mutex_);
        lost = std::exchange(pending_, {});
    }
    refused_ = false;
    for (const auto& m : lost) spdlog::warn("{} not sent before exit: lost; {}", describe(m), consequence);
}

}  // namespace cuzk::daemon
