// Clients waiting on a job (AWAIT, long poll) and the reply a client gets about a job. Every waiter is answered
// once: when its job ends, or at its deadline with the job's state then.
#pragma once

#include <cstdint>
#include <vector>

#include <zmq.hpp>

#include "assemblerd/job_table.hpp"
#include "assemblerd/journal.hpp"
#include "assemblerd/spool.hpp"
#include "daemon/request_router.hpp"

namespace cuzk::assemblerd {

class waiting_clients {
public:
    waiting_clients(daemon::request_router& api, job_table& jobs, journal& log, const spool& spool)
        : api_(api), jobs_(jobs), journal_(log), spool_(spool) {}

    void wait(std::vector<zmq::message_t> envelope, std::uint64_t job_id, std::uint64_t deadline_ms, bool fetch);
    // Answers the waiters of |j| (it has just ended).
    void answer(job& j);
    void answer_expired(std::uint64_t now_ms);

    // The job's state and what was measured of it; with |fetch|, the proof when it is done. The first reply
    // carrying the proof marks the result fetched (journaled): it is then kept only fetched_grace_ms more.
    ipc::await_reply_msg reply_for(job& j, bool fetch);

private:
    struct waiter {
        std::vector<zmq::message_t> envelope;
        std::uint64_t job_id;
        std::uint64_t deadline_ms;
        bool fetch;
    };

    daemon::request_router& api_;
    job_table& jobs_;
    journal& journal_;
    const spool& spool_;
    std::vector<waiter> waiters_;
};

}  // namespace cuzk::assemblerd
