// The front door's requests, from the api socket: SUBMIT (spooled and checked off the loop by the input
// checker, journaled before the reply; a retried SUBMIT with the same client request id gets its job back, also
// while the first is being checked), AWAIT (answered now, or held as a long
// poll), CANCEL and STATUS_REQUEST. A request that fails is answered with an ERROR_REPLY: bad_request for the
// client's input, internal for the service's own failure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "assemblerd/job_completion.hpp"
#include "assemblerd/input_checker.hpp"
#include "assemblerd/job_table.hpp"
#include "assemblerd/journal.hpp"
#include "assemblerd/proof_verifier.hpp"
#include "assemblerd/service_metrics.hpp"
#include "assemblerd/spool.hpp"
#include "assemblerd/stage_results.hpp"
#include "assemblerd/waiting_clients.hpp"
#include "daemon/config.hpp"
#include "daemon/request_router.hpp"

namespace cuzk::assemblerd {

class client_requests {
public:
    client_requests(const daemon::config& c, daemon::request_router& api, job_table& jobs, journal& log, spool& spool,
                    waiting_clients& waiting, job_completion& completion, const proof_verifier& verifier,
                    const stage_results& results, const service_metrics& metrics, input_checker& checker)
        : config_(c),
          api_(api),
          jobs_(jobs),
          journal_(log),
          spool_(spool),
          waiting_(waiting),
          completion_(completion),
          verifier_(verifier),
          results_(results),
          metrics_(metrics),
          checker_(checker) {}

    void on_request(daemon::routed_request& req);
    // The submissions whose input the checker is done with: journaled and answered, or refused.
    void on_checked();
    std::size_t checking_count() const { return checking_.size(); }

private:
    // A submission whose input is being checked: who to answer, and the same request sent again meanwhile.
    struct checking {
        std::vector<zmq::message_t> envelope;
        std::string request_id, request_digest;
        std::optional<uid_t> owner_uid;
        std::vector<std::vector<zmq::message_t>> duplicates;
    };

    void on_submit(daemon::routed_request& req, ipc::submit_msg& m);
    void accept(job j, checking& c);
    void reply_error_to_all(checking& c, ipc::error_code code, const std::string& text);
    void on_await(daemon::routed_request& req, const ipc::await_msg& m);
    void on_cancel(daemon::routed_request& req, const ipc::cancel_msg& m);
    std::string status_json(std::optional<uid_t> requester) const;

    const daemon::config& config_;
    daemon::request_router& api_;
    job_table& jobs_;
    journal& journal_;
    spool& spool_;
    waiting_clients& waiting_;
    job_completion& completion_;
    const proof_verifier& verifier_;
    const stage_results& results_;
    const service_metrics& metrics_;
    input_checker& checker_;
    std::map<std::uint64_t, checking> checking_;  // by job id
};

}  // namespace cuzk::assemblerd
