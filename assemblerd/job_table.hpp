// Every job the assembler knows, live and terminal, by id; the order of submission (FIFO within a
// priority); and the clients' request ids, so a retried SUBMIT finds its job. Rebuilt at start from the
// journal's records (apply) and written back compacted (live_records). Changing a job here does not journal
// it: the caller appends the record first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "assemblerd/job.hpp"
#include "assemblerd/journal_records.hpp"

namespace cuzk::assemblerd {

// A fetched result stays this long, so a client that retries its await (its reply was lost) still gets it.
inline constexpr std::uint64_t fetched_grace_ms = 5 * 60 * 1000;

class job_table {
public:
    // Reads a submitted job's spooled input into it; throws when the input is gone or unreadable.
    using input_loader = std::function<void(job&)>;

    explicit job_table(std::uint64_t result_ttl_ms) : ttl_ms_(result_ttl_ms) {}

    // Replays one journal record. Throws std::runtime_error for a record that names a job without a SUBMIT
    // record or a partition out of range. A job whose input |load| cannot read is kept, failed.
    void apply(const journal_records::record& r, const input_loader& load);
    // The records that rebuild this table: NEXT, then per job its SUBMIT, PROOFs and end.
    std::vector<journal_records::record> live_records() const;

    std::uint64_t next_id() const noexcept { return next_id_; }
    // Job ids only grow: |id| is never handed out again, even when its job never makes it into the table.
    void id_taken(std::uint64_t id) { next_id_ = std::max(next_id_, id + 1); }
    job& add(job j);

    job* find(std::uint64_t id);
    job* live(std::uint64_t id);  // nullptr for an unknown or terminal job
    // The job of an earlier submission of the same request: same request id and digest.
    std::optional<std::uint64_t> by_request(const std::string& request_id, const std::string& digest) const;
    // Live jobs that go before |j| in dispatch order (higher priority, or the same and submitted earlier).
    std::uint32_t queue_position(const job& j) const;
    std::uint64_t submission_order(std::uint64_t id) const { return seq_of_.at(id); }
    std::map<std::uint64_t, job>& all() noexcept { return jobs_; }
    const std::map<std::uint64_t, job>& all() const noexcept { return jobs_; }
    std::size_t pending() const;  // not terminal

    void finish(job& j, ipc::job_state state, std::string error, std::uint64_t at_ms);
    void mark_fetched(job& j, std::uint64_t at_ms);
    std::vector<std::uint64_t> expired(std::uint64_t now_ms) const;  // terminal jobs past their expiry
    void forget(std::uint64_t id);

private:
    const std::uint64_t ttl_ms_;
    std::map<std::uint64_t, job> jobs_;
    std::map<std::pair<std::string, std::string>, std::uint64_t> by_request_;  // (request id, digest) -> job
    std::map<std::uint64_t, std::uint64_t> seq_of_;  // FIFO order within a priority
    std::uint64_t seq_ = 0;
    std::uint64_t next_id_ = 1;
};

}  // namespace cuzk::assemblerd
