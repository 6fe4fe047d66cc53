#include "assemblerd/client_requests.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <map>

#include "assemblerd/job_access.hpp"
#include "common/daemon/timeline.hpp"
#include "common/util/errors.hpp"
#include "ipc/clock.hpp"

namespace cuzk::assemblerd {

namespace tl = cuzk::timeline;

void client_requests::on_request(daemon::routed_request& req) {
    const auto type = ipc::type_of(req.body);
    try {
        if (auto* m = std::get_if<ipc::submit_msg>(&req.body)) return on_submit(req, *m);
        if (auto* m = std::get_if<ipc::await_msg>(&req.body)) return on_await(req, *m);
        if (auto* m = std::get_if<ipc::cancel_msg>(&req.body)) return on_cancel(req, *m);
        if (std::holds_alternative<ipc::status_request_msg>(req.body))
            return api_.reply(req.envelope, ipc::status_reply_msg{status_json(req.peer_uid)});
        api_.reply_error(req.envelope, ipc::error_code::bad_request, type,
                         fmt::format("assemblerd's API takes SUBMIT, AWAIT, CANCEL and STATUS_REQUEST, not {}",
                                     ipc::to_string(type)));
    } catch (const input_error& e) {
        api_.reply_error(req.envelope, ipc::error_code::bad_request, type, e.what());
    } catch (const std::exception& e) {
        spdlog::error("{} failed: {}", ipc::to_string(type), e.what());
        api_.reply_error(req.envelope, ipc::error_code::internal, type, e.what());
    }
}

void client_requests::on_submit(daemon::routed_request& req, ipc::submit_msg& m) {
    if (!m.client_request_id.empty()) {
        if (const auto id = jobs_.by_request(m.client_request_id, m.request_digest)) {
            const job* known = jobs_.find(*id);
            if (!may_act_on(*known, req.peer_uid))
                return api_.reply_error(req.envelope, ipc::error_code::permission_denied, ipc::message_type::submit,
                                        fmt::format("request id {} names {}", m.client_request_id, not_yours(*known)));
            return api_.reply(req.envelope, ipc::submit_reply_msg{m.client_request_id, *id, true,
                                                                  jobs_.queue_position(*known)});
        }
        // The same request again (from the same user) while its input is being checked: answered with it.
        for (auto& [id, c] : checking_) {
            if (c.request_id == m.client_request_id && c.request_digest == m.request_digest &&
                c.owner_uid == req.peer_uid) {
                c.duplicates.push_back(std::move(req.envelope));
                return;
            }
        }
    }
    const auto max_pending = config_.assemblerd.max_pending_jobs;
    const auto pending = jobs_.pending() + checking_.size();
    if (pending >= max_pending) {
        return api_.reply_error(req.envelope, ipc::error_code::queue_full, ipc::message_type::submit,
                                fmt::format("{} jobs pending ([assemblerd] max_pending_jobs = {}); retry later",
                                            pending, max_pending));
    }
    job j;
    j.id = jobs_.next_id();
    jobs_.id_taken(j.id);  // the next submission gets another id while this one is checked
    j.request_id = m.client_request_id;
    j.request_digest = m.request_digest;
    j.owner_uid = req.peer_uid;
    j.kind = m.kind;
    j.priority = m.priority;
    j.created_ms = ipc::realtime_ms();
    checking_[j.id] = {std::move(req.envelope), m.client_request_id, m.request_digest, req.peer_uid, {}};
    checker_.submit(std::move(j), m.source, m.c1_path, std::move(m.input));
}

void client_requests::on_checked() {
    for (auto& o : checker_.take()) {
        auto it = checking_.find(o.checked.id);
        if (it == checking_.end()) continue;  // cannot happen: every submission is in checking_ until here
        checking& c = it->second;
        try {
            if (!o.error.empty()) {
                if (o.internal) spdlog::error("SUBMIT failed: {}", o.error);
                reply_error_to_all(c, o.internal ? ipc::error_code::internal : ipc::error_code::bad_request, o.error);
            } else {
                accept(std::move(o.checked), c);
            }
        } catch (const std::exception& e) {
            spdlog::error("SUBMIT failed: {}", e.what());
            reply_error_to_all(c, ipc::error_code::internal, e.what());
        }
        checking_.erase(it);
    }
}

void client_requests::reply_error_to_all(checking& c, ipc::error_code code, const std::string& text) {
    api_.reply_error(c.envelope, code, ipc::message_type::submit, text);
    for (auto& d : c.duplicates) api_.reply_error(d, code, ipc::message_type::submit, text);
}

// Journaled before the job is known to anyone: a job the client was told of survives a crash.
void client_requests::accept(job j, checking& c) {
    j.partitions.resize(j.partition_count());
    try {
        journal_.append(journal_records::encode(journal_records::submitted{
            j.id, j.priority, j.kind, j.partitions.size(), j.created_ms, j.request_id, j.input, j.request_digest,
            j.owner_uid}));
    } catch (...) {
        spool_.remove_job(j.id);  // not journaled, so not accepted: the client gets the error and may retry
        throw;
    }
    tl::emit(tl::event::job_submit, std::to_string(j.id),
             {{"partitions", std::to_string(j.partitions.size())}, {"priority", std::to_string(j.priority)},
              {"circuit", j.circuit()}});
    spdlog::info("job {} submitted: {} x {} (priority {}{})", j.id, j.partitions.size(), j.circuit(), j.priority,
                 j.request_id.empty() ? "" : ", request " + j.request_id);
    const auto& added = jobs_.add(std::move(j));
    const auto position = jobs_.queue_position(added);
    api_.reply(c.envelope, ipc::submit_reply_msg{added.request_id, added.id, false, position});
    for (auto& d : c.duplicates) api_.reply(d, ipc::submit_reply_msg{added.request_id, added.id, true, position});
}

void client_requests::on_await(daemon::routed_request& req, const ipc::await_msg& m) {
    job* j = jobs_.find(m.job_id);
    if (!j) {
        return api_.reply_error(req.envelope, ipc::error_code::unknown_job, ipc::message_type::await,
                                fmt::format("no job {} (never submitted, or its result expired)", m.job_id));
    }
    if (!may_act_on(*j, req.peer_uid))
        return api_.reply_error(req.envelope, ipc::error_code::permission_denied, ipc::message_type::await,
                                not_yours(*j));
    if (j->terminal() || m.timeout_ms == 0) return api_.reply(req.envelope, waiting_.reply_for(*j, m.fetch));
    waiting_.wait(std::move(req.envelope), m.job_id, ipc::realtime_ms() + m.timeout_ms, m.fetch);
}

void client_requests::on_cancel(daemon::routed_request& req, const ipc::cancel_msg& m) {
    job* j = jobs_.find(m.job_id);
    if (!j) {
        return api_.reply_error(req.envelope, ipc::error_code::unknown_job, ipc::message_type::cancel,
                                fmt::format("no job {} to cancel", m.job_id));
    }
    if (!may_act_on(*j, req.peer_uid))
        return api_.reply_error(req.envelope, ipc::error_code::permission_denied, ipc::message_type::cancel,
                                not_yours(*j));
    // Cancelling a finished job changes nothing (and does not count as fetching its proof).
    const bool was_running = !j->terminal() && j->in_flight();
    if (!j->terminal()) completion_.cancel(*j);
    auto reply = waiting_.reply_for(*j, false);
    reply.was_running = was_running;
    api_.reply(req.envelope, reply);
}

// The jobs listed are those |requester| may act on (a client user sees its own; the service's user all).
std::string client_requests::status_json(std::optional<uid_t> requester) const {
    nlohmann::json j;
    j["stage"] = "assemblerd";
    j["pid"] = ::getpid();
    j["pending_jobs"] = jobs_.pending();
    j["max_pending_jobs"] = config_.assemblerd.max_pending_jobs;
    j["duplicate_partition_proofs"] = results_.duplicates();
    j["verifying_jobs"] = verifier_.busy();
    j["checking_submissions"] = checking_.size();  // inputs being spooled and checked
    j["uptime_s"] = metrics_.uptime_s();
    j["api"] = config_.api_listen();
    j["metrics"] = config_.metrics.listen;
    auto& completed = j["proofs_completed"] = nlohmann::json::object();
    auto& failed = j["proofs_failed"] = nlohmann::json::object();
    for (const auto kind : {ipc::proof_kind::porep_c2, ipc::proof_kind::window_post, ipc::proof_kind::winning_post,
                            ipc::proof_kind::snap_update, ipc::proof_kind::test_circuit}) {
        completed[std::string(ipc::to_string(kind))] = metrics_.completed(kind);
        failed[std::string(ipc::to_string(kind))] = metrics_.failed(kind);
    }
    auto& list = j["jobs"] = nlohmann::json::array();
    for (const auto& [id, job] : jobs_.all()) {
        if (!may_act_on(job, requester)) continue;
        std::map<std::string, int> states;
        std::uint64_t failed_attempts = 0;
        for (const auto& p : job.partitions) {
            static const char* names[] = {"pending", "dispatched", "synthesized", "proved"};
            ++states[names[static_cast<int>(p.state)]];
            failed_attempts += p.failed_attempts;
        }
        nlohmann::json e{{"job", id},
                         {"state", ipc::to_string(job.state)},
                         {"kind", ipc::to_string(job.kind)},
                         {"priority", job.priority},
                         {"circuit", job.circuit()},
                         {"partitions_total", job.partitions.size()},
                         {"partitions_done", job.proved()},
                         {"partitions", states},
                         {"failed_attempts", failed_attempts}};
        if (!job.request_id.empty()) e["request_id"] = job.request_id;
        if (job.owner_uid) e["owner_uid"] = *job.owner_uid;
        if (!job.error.empty()) e["error"] = job.error;
        if (job.terminal()) e["fetched"] = job.fetched;
        if (!job.write_error.empty()) e["write_error"] = job.write_error;  // kept result_ttl_s until fetched, a grace period after
        list.push_back(e);
    }
    return j.dump();
}

}  // namespace cuzk::assemblerd
