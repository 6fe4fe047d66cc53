// How a job ends: done (all partitions proved, and verified when [assemblerd] verify is set), failed or
// cancelled. Each end is journaled first, then the job is finished in the table, the stages are told to drop
// what they still hold of it (failed, cancelled), and its waiting clients are answered.
#pragma once

#include <cstdint>
#include <string>

#include "assemblerd/job_table.hpp"
#include "assemblerd/journal.hpp"
#include "assemblerd/proof_verifier.hpp"
#include "assemblerd/service_metrics.hpp"
#include "assemblerd/spool.hpp"
#include "assemblerd/stage_sockets.hpp"
#include "assemblerd/waiting_clients.hpp"
#include "daemon/config.hpp"

namespace cuzk::assemblerd {

class job_completion {
public:
    job_completion(const daemon::config& c, job_table& jobs, journal& log, spool& spool, proof_verifier& verifier,
                   stage_sockets& stages, waiting_clients& waiting, service_metrics& metrics)
        : config_(c),
          jobs_(jobs),
          journal_(log),
          spool_(spool),
          verifier_(verifier),
          stages_(stages),
          waiting_(waiting),
          metrics_(metrics) {}

    // All partitions proved: to the verifier (when configured), finished in on_verified; else done now.
    void complete(job& j);
    void on_verified(const proof_verifier::outcome& o);
    void fail(job& j, std::string error);
    void cancel(job& j);

    // A write for |j| failed (a full disk; |what| says which and why): logged, shown in the status, retried.
    void write_failed(job& j, std::string what);
    // Retries what a full disk refused: PROOF records, result files with their DONE record, and ends (FAILED,
    // CANCELLED) kept in memory; a job whose proofs are all written at last is completed.
    void retry_writes();

private:
    void finish_done(job& j);
    // Ends |j| in memory and journals the end; a journal that refuses keeps the record for retry_writes.
    void end(job& j, ipc::job_state state, std::string error);

    const daemon::config& config_;
    job_table& jobs_;
    journal& journal_;
    spool& spool_;
    proof_verifier& verifier_;
    stage_sockets& stages_;
    waiting_clients& waiting_;
    service_metrics& metrics_;
};

}  // namespace cuzk::assemblerd
