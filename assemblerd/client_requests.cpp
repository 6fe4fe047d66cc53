#include "assemblerd/client_requests.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <map>

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
            return api_.reply(req.envelope, ipc::status_reply_msg{status_json()});
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

void client_requests::on_submit(daemon::routed_request& req, const ipc::submit_msg& m) {
    if (!m.client_request_id.empty()) {
        if (const auto id = jobs_.by_request(m.client_request_id, m.request_digest)) {
            const job* known = jobs_.find(*id);
            return api_.reply(req.envelope, ipc::submit_reply_msg{m.client_request_id, *id, true,
                                                                  jobs_.queue_position(*known)});
        }
    }
    if (m.kind != ipc::proof_kind::test_circuit && m.kind != ipc::proof_kind::porep_c2) {
        throw input_error(fmt::format("proof kind {} is not proved by this service yet (porep-c2 and "
                                      "test-circuit jobs are)",
                                      ipc::to_string(m.kind)));
    }
    const auto max_pending = config_.assemblerd.max_pending_jobs;
    if (jobs_.pending() >= max_pending) {
        return api_.reply_error(req.envelope, ipc::error_code::queue_full, ipc::message_type::submit,
                                fmt::format("{} jobs pending ([assemblerd] max_pending_jobs = {}); retry later",
                                            jobs_.pending(), max_pending));
    }
    job j;
    j.id = jobs_.next_id();
    j.request_id = m.client_request_id;
    j.request_digest = m.request_digest;
    j.kind = m.kind;
    j.priority = m.priority;
    j.created_ms = ipc::realtime_ms();
    j.input = spool_.take_input(j.id, m.source, m.c1_path);  // throws input_error naming the file
    try {
        // A C1 is checked here (parse, consistency, registered proof): a bad one is refused now, its error
        // naming the client's file and the JSON path, not found out partitions later.
        spool_.load_input(j, m.c1_path);
    } catch (...) {
        spool_.remove_job(j.id);
        throw;
    }
    j.partitions.resize(j.porep ? j.porep->partitions() : j.test_input.partitions);
    jobs_.id_taken(j.id);
    try {
        journal_.append(journal_records::encode(journal_records::submitted{
            j.id, j.priority, j.kind, j.partitions.size(), j.created_ms, j.request_id, j.input, j.request_digest}));
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
    api_.reply(req.envelope, ipc::submit_reply_msg{m.client_request_id, added.id, false, jobs_.queue_position(added)});
}

void client_requests::on_await(daemon::routed_request& req, const ipc::await_msg& m) {
    job* j = jobs_.find(m.job_id);
    if (!j) {
        return api_.reply_error(req.envelope, ipc::error_code::unknown_job, ipc::message_type::await,
                                fmt::format("no job {} (never submitted, or its result expired)", m.job_id));
    }
    if (j->terminal() || m.timeout_ms == 0) return api_.reply(req.envelope, waiting_.reply_for(*j, m.fetch));
    waiting_.wait(std::move(req.envelope), m.job_id, ipc::realtime_ms() + m.timeout_ms, m.fetch);
}

void client_requests::on_cancel(daemon::routed_request& req, const ipc::cancel_msg& m) {
    job* j = jobs_.find(m.job_id);
    if (!j) {
        return api_.reply_error(req.envelope, ipc::error_code::unknown_job, ipc::message_type::cancel,
                                fmt::format("no job {} to cancel", m.job_id));
    }
    // Cancelling a finished job changes nothing (and does not count as fetching its proof).
    const bool was_running = !j->terminal() && j->in_flight();
    if (!j->terminal()) completion_.cancel(*j);
    auto reply = waiting_.reply_for(*j, false);
    reply.was_running = was_running;
    api_.reply(req.envelope, reply);
}

std::string client_requests::status_json() const {
    nlohmann::json j;
    j["stage"] = "assemblerd";
    j["pid"] = ::getpid();
    j["pending_jobs"] = jobs_.pending();
    j["max_pending_jobs"] = config_.assemblerd.max_pending_jobs;
    j["duplicate_partition_proofs"] = results_.duplicates();
    j["verifying_jobs"] = verifier_.busy();
    j["uptime_s"] = metrics_.uptime_s();
    j["api"] = config_.api_listen();
    j["metrics"] = config_.metrics.listen;
    auto& completed = j["proofs_completed"] = nlohmann::json::object();
    auto& failed = j["proofs_failed"] = nlohmann::json::object();
    for (const auto kind : {ipc::proof_kind::porep_c2, ipc::proof_kind::test_circuit}) {
        completed[std::string(ipc::to_string(kind))] = metrics_.completed(kind);
        failed[std::string(ipc::to_string(kind))] = metrics_.failed(kind);
    }
    auto& list = j["jobs"] = nlohmann::json::array();
    for (const auto& [id, job] : jobs_.all()) {
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
        if (!job.error.empty()) e["error"] = job.error;
        if (job.terminal()) e["fetched"] = job.fetched;
        if (!job.write_error.empty()) e["write_error"] = job.write_error;  // kept result_ttl_s until fetched, a grace period after
        list.push_back(e);
    }
    return j.dump();
}

}  // namespace cuzk::assemblerd
