#include "assemblerd/waiting_clients.hpp"

#include "ipc/clock.hpp"

namespace cuzk::assemblerd {

void waiting_clients::wait(std::vector<zmq::message_t> envelope, std::uint64_t job_id, std::uint64_t deadline_ms) {
    waiters_.push_back({std::move(envelope), job_id, deadline_ms});
}

void waiting_clients::answer(job& j) {
    for (auto it = waiters_.begin(); it != waiters_.end();) {
        if (it->job_id == j.id) {
            api_.reply(it->envelope, reply_for(j));
            it = waiters_.erase(it);
        } else {
            ++it;
        }
    }
}

void waiting_clients::answer_expired(std::uint64_t now_ms) {
    for (auto it = waiters_.begin(); it != waiters_.end();) {
        if (it->deadline_ms <= now_ms) {
            if (job* j = jobs_.find(it->job_id)) api_.reply(it->envelope, reply_for(*j));
            else api_.reply_error(it->envelope, ipc::error_code::unknown_job, ipc::message_type::await, "job expired");
            it = waiters_.erase(it);
        } else {
            ++it;
        }
    }
}

ipc::await_reply_msg waiting_clients::reply_for(job& j) {
    ipc::await_reply_msg r;
    r.job_id = j.id;
    r.state = j.state;
    r.partitions_done = j.proved();
    r.partitions_total = static_cast<std::uint32_t>(j.partitions.size());
    r.error = j.error;
    if (j.state == ipc::job_state::done) {
        r.result_path = spool_.result_path(j.id).string();
        for (const auto& p : j.partitions) r.proof.insert(r.proof.end(), p.proof->begin(), p.proof->end());
        if (!j.fetched) {
            const auto now = ipc::realtime_ms();
            journal_.append(journal_records::encode(journal_records::fetched{j.id, now}));
            jobs_.mark_fetched(j, now);
        }
    }
    return r;
}

}  // namespace cuzk::assemblerd
