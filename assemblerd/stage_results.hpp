// What the stages report on the results socket, applied to the jobs: SLOT_READY (a partition synthesized),
// PARTITION_PROOF (journaled; the last one completes the job), PARTITION_FAILED and STAGE_HELLO. Reports
// about a job that is unknown or over are dropped; a second proof of a partition is counted and ignored.
#pragma once

#include <cstdint>

#include "assemblerd/dispatcher.hpp"
#include "assemblerd/job_completion.hpp"
#include "assemblerd/service_metrics.hpp"
#include "assemblerd/job_table.hpp"
#include "assemblerd/journal.hpp"
#include "assemblerd/stage_sockets.hpp"
#include "ipc/messages.hpp"

namespace cuzk::assemblerd {

class stage_results {
public:
    stage_results(std::uint32_t max_partition_attempts, job_table& jobs, journal& log, dispatcher& dispatch,
                  job_completion& completion, stage_sockets& stages, service_metrics& metrics)
        : max_attempts_(max_partition_attempts),
          jobs_(jobs),
          journal_(log),
          dispatcher_(dispatch),
          completion_(completion),
          stages_(stages),
          metrics_(metrics) {}

    void on_result(const ipc::message& m);
    std::uint64_t duplicates() const noexcept { return duplicates_; }

private:
    void on_partition_proof(const ipc::partition_proof_msg& r);
    void on_partition_failed(const ipc::partition_failed_msg& r);

    const std::uint32_t max_attempts_;
    job_table& jobs_;
    journal& journal_;
    dispatcher& dispatcher_;
    job_completion& completion_;
    stage_sockets& stages_;
    service_metrics& metrics_;
    std::uint64_t duplicates_ = 0;
};

}  // namespace cuzk::assemblerd
