// The partitions synthd was handed and has not finished: priority first (higher first), then arrival order,
// across jobs. A partition already queued or in progress is not queued twice: the assembler re-sends what it
// fears lost (after a restart of either side), and a copy must not be synthesized twice.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "common/util/priority_fifo.hpp"
#include "daemon/porep_job_input.hpp"
#include "daemon/post_job_input.hpp"
#include "daemon/update_job_input.hpp"

namespace cuzk::synthd {

struct work_item {
    std::uint64_t job_id = 0;
    std::uint32_t partition = 0;
    std::int32_t priority = 0;
    std::string circuit_spec;  // the partition's circuit ("mul:64@3", "porep:StackedDrg2KiBV1_1")
    // PoRep jobs: the job's C1, parsed once and shared by its partitions (null for test circuits).
    std::shared_ptr<const daemon::porep_job_input> porep;
    // PoSt jobs: the decoded, verified vanilla proofs as the partition's circuit (null otherwise).
    std::shared_ptr<const daemon::post_job_input> post;
    // SnapDeals jobs: every partition's circuit from the decoded vanilla proofs, shared by the job's partitions
    // (null otherwise).
    std::shared_ptr<const daemon::update_job_input> update;
};

class work_queue {
public:
    // False when (job, partition) is already queued or in progress.
    bool push(work_item item);
    // Blocks until an item of at least |min_priority| is first in line, or |wait| passes / close(); the item is then
    // "in progress" until done().
    std::optional<work_item> pop(std::chrono::milliseconds wait,
                                 std::int32_t min_priority = priority_fifo<work_item>::any_priority);
    void done(std::uint64_t job_id, std::uint32_t partition);
    // Drops the queued partitions of |job_id|; returns how many.
    std::size_t drop_job(std::uint64_t job_id);
    void close();

    std::size_t queued() const;
    std::size_t in_progress() const;

private:
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    priority_fifo<work_item> queue_;
    std::set<std::pair<std::uint64_t, std::uint32_t>> known_;  // queued or in progress
    std::size_t in_progress_ = 0;
    bool closed_ = false;
};

}  // namespace cuzk::synthd
