#include "assemblerd/waiting_clients.hpp"

#include <spdlog/spdlog.h>

#include "ipc/clock.hpp"

namespace cuzk::assemblerd {

void waiting_clients::wait(std::vector<zmq::message_t> envelope, std::uint64_t job_id, std::uint64_t deadline_ms,
                           bool fetch) {
    waiters_.push_back({std::move(envelope), job_id, deadline_ms, fetch});
}

void waiting_clients::answer(job& j) {
    for (auto it = waiters_.begin(); it != waiters_.end();) {
        if (it->job_id == j.id) {
            api_.reply(it->envelope, reply_for(j, it->fetch));
            it = waiters_.erase(it);
        } else {
            ++it;
        }
    }
}

void waiting_clients::answer_expired(std::uint64_t now_ms) {
    for (auto it = waiters_.begin(); it != waiters_.end();) {
        if (it->deadline_ms <= now_ms) {
            if (job* j = jobs_.find(it->job_id)) api_.reply(it->envelope, reply_for(*j, it->fetch));
            else api_.reply_error(it->envelope, ipc::error_code::unknown_job, ipc::message_type::await, "job expired");
            it = waiters_.erase(it);
        } else {
            ++it;
        }
    }
}

ipc::await_reply_msg waiting_clients::reply_for(job& j, bool fetch) {
    ipc::await_reply_msg r;
    r.job_id = j.id;
    r.state = j.state;
    r.partitions_done = j.proved();
    r.partitions_total = static_cast<std::uint32_t>(j.partitions.size());
    r.error = j.error;
    const auto now = ipc::realtime_ms();
    const auto end = j.terminal() ? j.finished_ms : now;
    const auto since_created = [&](std::uint64_t t) { return t > j.created_ms ? t - j.created_ms : 0; };
    const auto& m = j.measured;
    // A job that ended with nothing dispatched in this process (recovered from the journal, or cancelled while
    // queued) reports no queue wait rather than its whole life as one.
    r.timings.queue_wait_ms = m.first_dispatch_ms ? since_created(m.first_dispatch_ms)
                              : j.terminal()      ? 0
                                                  : since_created(now);
    r.timings.params_load_ms = m.params_load_us / 1000;
    r.timings.synthesis_ms = m.synth_us / 1000;
    r.timings.gpu_ms = m.gpu_us / 1000;
    r.timings.total_ms = since_created(end);
    if (j.state == ipc::job_state::done && fetch) {
        r.result_path = spool_.result_path(j.id).string();
        for (const auto& p : j.partitions) r.proof.insert(r.proof.end(), p.proof->begin(), p.proof->end());
        if (!j.fetched) {
            try {
                journal_.append(journal_records::encode(journal_records::fetched{j.id, now}));
            } catch (const std::exception& e) {
                // Only the result's shorter life is lost (a restart keeps it for result_ttl_s): the reply goes out.
                spdlog::warn("job {}: FETCHED record not journaled: {}", j.id, e.what());
            }
            jobs_.mark_fetched(j, now);
        }
    }
    return r;
}

}  // namespace cuzk::assemblerd
