// assemblerd's sockets to the stages: a DEALER to synthd (JOB, CANCEL) and one to each gpud socket found in
// the runtime directory (CANCEL: every gpud may hold a partition of the job in flight). Sends never block.
// Nothing is dropped silently: a JOB not sent is reported to the caller, who re-queues its partitions; a
// CANCEL not sent is logged and sent again each turn (retry_cancels) for up to cancel_retry_ms.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include <zmq.hpp>

#include "daemon/config.hpp"
#include "ipc/messages.hpp"

namespace cuzk::assemblerd {

class stage_sockets {
public:
    // A stage restarts in seconds; a CANCEL that a minute of retries did not deliver is given up. What it
    // leaves is wasted work, not a wrong result: the job is over here, so a partition the stage still
    // synthesizes or proves is dropped when it arrives, and its ring slot is freed after proving.
    static constexpr std::uint64_t cancel_retry_ms = 60 * 1000;

    stage_sockets(zmq::context_t& context, const daemon::config& c);

    zmq::socket_t& synthd() noexcept { return synthd_; }
    [[nodiscard]] bool send_job(const ipc::job_msg& m);
    // CANCEL to synthd and every gpud.
    void cancel(std::uint64_t job_id, std::uint64_t now_ms);
    void retry_cancels(std::uint64_t now_ms);
    // Connects a DEALER to each gpud socket in the runtime directory not connected yet.
    void find_gpuds();
    // Reads what the stages answered (errors only) and logs it.
    void drain_replies();

private:
    static constexpr int to_synthd = -1;  // a cancel's target: synthd, or a gpud's GPU
    struct unsent_cancel {
        std::uint64_t job_id;
        int target;
        std::uint64_t first_failed_ms;
    };
    bool send_cancel(std::uint64_t job_id, int target);

    const daemon::config& config_;
    zmq::context_t& context_;
    zmq::socket_t synthd_;
    std::map<int, zmq::socket_t> gpuds_;  // by GPU
    std::vector<unsent_cancel> unsent_;
};

}  // namespace cuzk::assemblerd
