// The daemons' outbox: messages leave in the order they were pushed; those the socket refuses stay queued,
// first in line, and leave on a later call once the peer takes them; what is left at exit is dropped (logged).
#include <gtest/gtest.h>

#include "daemon/outbox.hpp"
#include "ipc/message_socket.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

using namespace cuzk;

namespace {

std::string unique_endpoint() {
    static int counter = 0;
    const auto path = std::filesystem::temp_directory_path() / fmt::format("cuzk-test-outbox-{}-{}", ::getpid(), counter++);
    return "ipc://" + path.string();
}

// A PUSH socket whose queue holds one message while no peer is there: the next send is refused (EAGAIN).
zmq::socket_t narrow_push(zmq::context_t& context, const std::string& endpoint) {
    zmq::socket_t push(context, zmq::socket_type::push);
    push.set(zmq::sockopt::sndhwm, 1);
    push.set(zmq::sockopt::linger, 0);
    push.connect(endpoint);
    return push;
}

}  // namespace

TEST(DaemonOutbox, KeepsRefusedMessagesInOrderUntilThePeerTakesThem) {
    zmq::context_t context(1);
    const auto endpoint = unique_endpoint();
    auto push = narrow_push(context, endpoint);
    daemon::outbox sut;
    for (std::uint64_t job = 0; job < 5; ++job) sut.push(ipc::cancel_msg{job});
    const auto left = sut.send_to(push);
    EXPECT_GT(left, 0u) << "the socket took every message with no peer and a queue of one";
    EXPECT_LT(left, 5u);
    EXPECT_EQ(sut.send_to(push), left);  // still refused: nothing is lost, nothing reordered
    sut.push(ipc::cancel_msg{5});        // pushed meanwhile: leaves after those held back

    zmq::socket_t pull(context, zmq::socket_type::pull);
    pull.bind(endpoint);
    std::vector<std::uint64_t> received;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (received.size() < 6 && std::chrono::steady_clock::now() < deadline) {
        sut.send_to(push);
        while (auto m = ipc::recv_message(pull, zmq::recv_flags::dontwait))
            received.push_back(std::get<ipc::cancel_msg>(*m).job_id);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(received, (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(sut.send_to(push), 0u);
    std::filesystem::remove(endpoint.substr(6));
}

TEST(DaemonOutbox, DropUnsentEmptiesTheQueue) {
    zmq::context_t context(1);
    auto push = narrow_push(context, unique_endpoint());
    daemon::outbox sut;
    for (std::uint64_t job = 0; job < 3; ++job) sut.push(ipc::partition_failed_msg{job, 1, true, "device lost"});
    ASSERT_GT(sut.send_to(push), 0u);
    sut.drop_unsent("a test: nothing depends on them");
    EXPECT_EQ(sut.send_to(push), 0u);
}

TEST(DaemonOutbox, PushWakesThePollingLoop) {
    daemon::outbox sut;
    zmq::pollitem_t item{nullptr, sut.fd(), ZMQ_POLLIN, 0};
    EXPECT_EQ(zmq::poll(&item, 1, std::chrono::milliseconds(0)), 0);
    sut.push(ipc::cancel_msg{1});
    EXPECT_EQ(zmq::poll(&item, 1, std::chrono::milliseconds(0)), 1);
}
