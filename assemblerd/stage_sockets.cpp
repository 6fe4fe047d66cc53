#include "assemblerd/stage_sockets.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "daemon/request_router.hpp"
#include "ipc/endpoints.hpp"
#include "ipc/message_socket.hpp"

namespace cuzk::assemblerd {

namespace {

std::string stage_name(int target) { return target < 0 ? "synthd" : fmt::format("gpud of GPU {}", target); }

void drain(zmq::socket_t& socket, const char* stage) {
    for (;;) {
        try {
            auto m = ipc::recv_message(socket, zmq::recv_flags::dontwait);
            if (!m) return;
            if (auto* e = std::get_if<ipc::error_reply_msg>(&*m)) spdlog::error("{} refused a request: {}", stage, e->text);
        } catch (const ipc::protocol_error& e) {
            spdlog::warn("malformed reply from {}: {}", stage, e.what());
        }
    }
}

}  // namespace

stage_sockets::stage_sockets(zmq::context_t& context, const daemon::config& c)
    : config_(c),
      context_(context),
      synthd_(daemon::connect_socket(context, zmq::socket_type::dealer, c.endpoint(ipc::socket_names::synthd))) {}

bool stage_sockets::send_job(const ipc::job_msg& m) { return ipc::send_message(synthd_, m, zmq::send_flags::dontwait); }

bool stage_sockets::send_cancel(std::uint64_t job_id, int target) {
    auto& socket = target == to_synthd ? synthd_ : gpuds_.at(target);
    return ipc::send_message(socket, ipc::cancel_msg{job_id}, zmq::send_flags::dontwait);
}

void stage_sockets::cancel(std::uint64_t job_id, std::uint64_t now_ms) {
    // Every gpud: each may be proving a partition of the job. A gpud that is down (its socket file left
    // behind) gets the cancel when it binds again.
    find_gpuds();
    std::vector<int> targets{to_synthd};
    for (const auto& [gpu, socket] : gpuds_) targets.push_back(gpu);
    for (const int target : targets) {
        if (send_cancel(job_id, target)) continue;
        spdlog::warn("CANCEL of job {} not sent to {} (its socket's queue is full): sent again each turn for up to "
                     "{} s",
                     job_id, stage_name(target), cancel_retry_ms / 1000);
        unsent_.push_back({job_id, target, now_ms});
    }
}

void stage_sockets::retry_cancels(std::uint64_t now_ms) {
    std::erase_if(unsent_, [&](const unsent_cancel& c) {
        if (send_cancel(c.job_id, c.target)) {
            spdlog::info("CANCEL of job {} sent to {} after {} ms of retries", c.job_id, stage_name(c.target),
                         now_ms - c.first_failed_ms);
            return true;
        }
        if (now_ms - c.first_failed_ms < cancel_retry_ms) return false;
        spdlog::error("CANCEL of job {} to {} given up after {} s of retries: whatever that stage still makes of the "
                      "job is dropped when it arrives",
                      c.job_id, stage_name(c.target), cancel_retry_ms / 1000);
        return true;
    });
}

// Called at start, when a gpud says hello (it binds before), and before a cancel is sent. Sockets stay: a gpud
// that restarts binds the same name and ZeroMQ reconnects.
void stage_sockets::find_gpuds() {
    for (const int gpu : ipc::gpud_sockets_in(config_.runtime.dir)) {
        if (gpuds_.count(gpu)) continue;
        const auto endpoint = config_.endpoint(ipc::gpud_socket_name(gpu));
        gpuds_.emplace(gpu, daemon::connect_socket(context_, zmq::socket_type::dealer, endpoint));
        spdlog::info("gpud of GPU {} at {}", gpu, endpoint);
    }
}

void stage_sockets::drain_replies() {
    drain(synthd_, "synthd");
    for (auto& [gpu, socket] : gpuds_) drain(socket, "gpud");
}

}  // namespace cuzk::assemblerd
