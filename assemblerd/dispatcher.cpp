#include "assemblerd/dispatcher.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

namespace cuzk::assemblerd {

dispatcher::dispatcher(job_table& jobs, std::uint32_t window, std::uint64_t partition_timeout_ms,
                       std::filesystem::path spool_root, job_sender send)
    : jobs_(jobs),
      window_(window),
      timeout_ms_(partition_timeout_ms),
      spool_root_(std::move(spool_root)),
      send_(std::move(send)) {}

// PoSt partitions (WindowPoSt's priority and up) are handed over at once and not counted in the window: synthd
// takes them on its PoSt thread, while in steady state the window is full of PoRep partitions whose witnesses wait
// for a ring slot (the GPU is the bound), where a WinningPoSt would wait a PoRep partition's GPU time per place.
void dispatcher::dispatch(std::uint64_t now_ms) {
    std::uint32_t in_synthesis = 0;
    std::vector<job*> order;
    auto urgent = [](const job& j) { return j.priority >= ipc::post_priority_floor; };
    for (auto& [id, j] : jobs_.all()) {
        if (j.terminal()) continue;
        order.push_back(&j);
        if (!urgent(j))
            for (const auto& p : j.partitions) in_synthesis += p.state == partition_state::dispatched;
    }
    std::sort(order.begin(), order.end(), [&](const job* a, const job* b) {
        return a->priority != b->priority ? a->priority > b->priority
                                          : jobs_.submission_order(a->id) < jobs_.submission_order(b->id);
    });
    for (job* j : order) {
        const bool outside_window = urgent(*j);  // the order puts these first
        if (!outside_window && in_synthesis >= window_) break;
        ipc::job_msg m{j->id, j->kind, j->priority, static_cast<std::uint32_t>(j->partitions.size()), {},
                       (spool_root_ / j->input).string()};
        for (std::uint32_t p = 0; p < j->partitions.size() && (outside_window || in_synthesis < window_); ++p) {
            auto& part = j->partitions[p];
            if (part.state != partition_state::pending) continue;
            part.state = partition_state::dispatched;
            part.since_ms = now_ms;
            ++part.dispatches;
            if (!outside_window) ++in_synthesis;
            m.partitions.push_back(p);
        }
        if (m.partitions.empty()) continue;
        if (!send_(m)) {
            // Not queued for synthd (its queue is full): the partitions are pending again at once, and the rest
            // waits for the next turn, since any JOB would meet the same queue.
            for (auto p : m.partitions) {
                auto& part = j->partitions[p];
                part.state = partition_state::pending;
                --part.dispatches;
            }
            if (failed_sends_++ == 0)
                spdlog::warn("JOB for job {} partitions {} not sent to synthd (its socket's queue is full): pending "
                             "again, dispatched in a later turn",
                             j->id, fmt::join(m.partitions, ", "));
            return;
        }
        if (j->measured.first_dispatch_ms == 0) j->measured.first_dispatch_ms = now_ms;
        if (failed_sends_) {
            spdlog::info("JOBs reach synthd again after {} sends that failed", failed_sends_);
            failed_sends_ = 0;
        }
        j->state = ipc::job_state::running;
    }
}

void dispatcher::check_timeouts(std::uint64_t now_ms) {
    for (auto& [id, j] : jobs_.all()) {
        if (j.terminal()) continue;
        for (std::uint32_t p = 0; p < j.partitions.size(); ++p) {
            auto& part = j.partitions[p];
            if ((part.state == partition_state::dispatched || part.state == partition_state::synthesized) &&
                now_ms - part.since_ms > timeout_ms_) {
                spdlog::warn("job {} partition {}: no news for {} ms (partition_timeout_s), dispatched again", id, p,
                             now_ms - part.since_ms);
                part.state = partition_state::pending;
            }
        }
    }
}

void dispatcher::on_synthd_started(std::int32_t pid, std::uint64_t started_ms) {
    const std::pair<std::int32_t, std::uint64_t> identity{pid, started_ms};
    if (synthd_identity_ == identity) return;
    synthd_identity_ = identity;
    spdlog::info("synthd (pid {}) started", pid);
    std::size_t again = 0;
    for (auto& [id, j] : jobs_.all()) {
        if (j.terminal()) continue;
        // Only what was handed out before this synthd started: later dispatches went to it (the hello can
        // arrive after them when synthd connected before the results socket was bound).
        for (auto& p : j.partitions)
            if (p.state == partition_state::dispatched && p.since_ms < started_ms) {
                p.state = partition_state::pending;
                ++again;
            }
    }
    if (again) spdlog::info("{} partitions handed to the previous synthd are dispatched again", again);
}

}  // namespace cuzk::assemblerd
