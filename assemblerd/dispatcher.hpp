// Hands pending partitions to synthd, and takes back what a stage may have lost.
// Jobs are dispatched highest priority first, FIFO within a priority, at most |window| partitions handed to
// synthd and not yet synthesized (so a later high-priority job overtakes the rest of a long one); PoSt partitions
// (ipc::post_priority_floor and up) at once, outside the window. A partition
// goes back to pending (to be dispatched again) when its JOB message could not be sent (at once), when a new
// synthd says hello (what the previous one held), and after |partition_timeout_ms| without news of it.
// Duplicated partition proofs are ignored downstream, so dispatching again never duplicates a job's result.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <utility>

#include "assemblerd/job_table.hpp"
#include "ipc/messages.hpp"

namespace cuzk::assemblerd {

class dispatcher {
public:
    // Sends a JOB to synthd without blocking; false when it was not sent.
    using job_sender = std::function<bool(const ipc::job_msg&)>;

    dispatcher(job_table& jobs, std::uint32_t window, std::uint64_t partition_timeout_ms,
               std::filesystem::path spool_root, job_sender send);

    void dispatch(std::uint64_t now_ms);
    void check_timeouts(std::uint64_t now_ms);
    // A synthd's STAGE_HELLO: when it is a new process, what the previous one was handed goes back to pending.
    void on_synthd_started(std::int32_t pid, std::uint64_t started_ms);

private:
    job_table& jobs_;
    const std::uint32_t window_;
    const std::uint64_t timeout_ms_;
    const std::filesystem::path spool_root_;
    const job_sender send_;
    std::pair<std::int32_t, std::uint64_t> synthd_identity_{0, 0};
    std::uint64_t failed_sends_ = 0;  // consecutive: logged at the first and when sending works again
};

}  // namespace cuzk::assemblerd
