#include "assemblerd/assembler_service.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "assemblerd/job.hpp"
#include "assemblerd/journal.hpp"
#include "assemblerd/spool.hpp"
#include "common/circuits/registry.hpp"
#include "common/daemon/systemd_notify.hpp"
#include "common/daemon/timeline.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/verifier.hpp"
#include "common/util/errors.hpp"
#include "daemon/event_poll.hpp"
#include "daemon/instance_lock.hpp"
#include "daemon/params_store.hpp"
#include "daemon/request_router.hpp"
#include "daemon/ring_setup.hpp"
#include "daemon/service_pulse.hpp"
#include "daemon/shutdown_signal.hpp"
#include "ipc/clock.hpp"
#include "ipc/endpoints.hpp"
#include "ipc/message_socket.hpp"

namespace cuzk::assemblerd {

namespace {

using namespace std::chrono_literals;
namespace tl = cuzk::timeline;
using ipc::job_state;

// A fetched result stays this long, so a client that retries its await (its reply was lost) still gets it.
constexpr std::uint64_t fetched_grace_ms = 5 * 60 * 1000;

struct waiter {
    std::vector<zmq::message_t> envelope;
    std::uint64_t job_id;
    std::uint64_t deadline_ms;
};

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }
std::string from_dash(const std::string& s) { return s == "-" ? "" : s; }

// Verification of assembled proofs, off the main loop (a PoRep job of 10 partitions takes a while: the API
// and the stages' results keep flowing meanwhile). One thread, jobs in completion order; the verifying keys
// stay prepared per shape. The loop hands a copy of the job in and takes outcomes back.
class proof_verifier {
public:
    struct outcome {
        std::uint64_t job_id = 0;
        std::vector<std::uint32_t> invalid;  // partitions whose proof does not verify
        std::string error;                   // verification could not run (vk missing or unfit, ...)
    };

    explicit proof_verifier(std::filesystem::path params_dir)
        : params_dir_(std::move(params_dir)), thread_([this] { loop(); }) {}
    ~proof_verifier() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

    void submit(job j) {
        {
            std::lock_guard lock(mutex_);
            tasks_.push_back(std::move(j));
        }
        cv_.notify_all();
    }
    std::vector<outcome> take() {
        std::lock_guard lock(mutex_);
        return std::exchange(done_, {});
    }
    std::size_t busy() const {
        std::lock_guard lock(mutex_);
        return tasks_.size() + running_;
    }

private:
    void loop() {
        for (;;) {
            job j;
            {
                std::unique_lock lock(mutex_);
                cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
                if (stop_) return;
                j = std::move(tasks_.front());
                tasks_.pop_front();
                running_ = 1;
            }
            outcome o{j.id, {}, {}};
            try {
                o.invalid = verify(j);
            } catch (const std::exception& e) {
                o.error = e.what();
            }
            std::lock_guard lock(mutex_);
            running_ = 0;
            done_.push_back(std::move(o));
        }
    }

    // Partitions whose proof does not verify against their own public inputs.
    // PoRep partitions: the public inputs from the C1's replica_id, seed, comm_d and comm_r, checked with
    // the vk of the registered proof (<params_dir>/porep_<name>.vk).
    std::vector<std::uint32_t> verify(const job& j) {
        const auto shape = j.porep ? j.porep->circuit() : daemon::circuit_shape(j.test_input.partition_spec(0));
        auto it = pvks_.find(shape);
        if (it == pvks_.end()) {
            const auto vk_file = daemon::vk_path(params_dir_, shape);
            const auto vk = groth16::read_vk(vk_file);
            if (j.porep && vk.ic.size() != j.porep->proof->public_inputs_per_partition() + 1)
                throw input_error(fmt::format("{}: {} IC points, {} needs {}", vk_file.string(), vk.ic.size(),
                                              j.porep->circuit(), j.porep->proof->public_inputs_per_partition() + 1));
            it = pvks_.emplace(shape, groth16::prepare_verifying_key(vk)).first;
        }
        std::vector<std::uint32_t> invalid;
        for (std::uint32_t p = 0; p < j.partitions.size(); ++p) {
            const auto inputs = j.porep ? j.porep->partition_inputs(p)
                                        : circuits::make_circuit(j.test_input.partition_spec(p))->public_inputs();
            const auto& bytes = *j.partitions[p].proof;
            bool ok = false;
            try {
                const auto pi = groth16::proof_from_bytes(
                    std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
                ok = groth16::verify_proof(it->second, pi, inputs);
            } catch (const std::exception& e) {
                spdlog::error("job {} partition {}: proof does not decode: {}", j.id, p, e.what());
            }
            if (!ok) invalid.push_back(p);
        }
        return invalid;
    }

    const std::filesystem::path params_dir_;
    std::map<std::string, groth16::prepared_verifying_key> pvks_;  // verifier thread only
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    std::deque<job> tasks_;
    std::vector<outcome> done_;
    std::size_t running_ = 0;
    bool stop_ = false;
    std::thread thread_;  // last: starts after the members it uses
};

class assembler_service {
public:
    explicit assembler_service(const daemon::config& c)
        : config_(c),
          spool_(c.runtime.spool_dir),
          ring_(daemon::open_ring(c)),
          window_(c.effective_dispatch_window()),
          timeout_ms_(static_cast<std::uint64_t>(c.assemblerd.partition_timeout_s * 1000)),
          ttl_ms_(static_cast<std::uint64_t>(c.assemblerd.result_ttl_s * 1000)) {}

    int run() {
        daemon::instance_lock lock(config_.runtime.dir, "assemblerd");
        recover();
        zmq::context_t context(1);
        daemon::request_router api(context, config_.endpoint(ipc::socket_names::api));
        zmq::socket_t results(context, zmq::socket_type::pull);
        results.set(zmq::sockopt::linger, 0);
        results.bind(config_.endpoint(ipc::socket_names::results));
        auto synthd = daemon::connect_socket(context, zmq::socket_type::dealer, config_.endpoint(ipc::socket_names::synthd));
        std::map<int, zmq::socket_t> gpuds;  // by GPU; closed before |context| is
        api_ = &api;
        synthd_ = &synthd;
        context_ = &context;
        gpuds_ = &gpuds;
        find_gpuds();
        // Jobs whose last proof was journaled before the previous process could finish them.
        for (auto& [id, j] : jobs_)
            if (!j.terminal() && !j.partitions.empty() && j.proved() == j.partitions.size()) complete(j);
        daemon::notify_ready();
        daemon::service_pulse pulse;
        spdlog::info("assemblerd serving on {} ({} jobs recovered, dispatch window {}, verify {})",
                     config_.endpoint(ipc::socket_names::api), jobs_.size(), window_, config_.assemblerd.verify);
        // gpud sockets come and go with the gpuds; their replies (errors only) are drained each turn.
        zmq::pollitem_t items[] = {{api.socket().handle(), 0, ZMQ_POLLIN, 0},
                                   {results.handle(), 0, ZMQ_POLLIN, 0},
                                   {synthd.handle(), 0, ZMQ_POLLIN, 0}};
        std::uint64_t last_sweep = 0;
        while (!daemon::shutdown_requested()) {
            daemon::poll_once(items, 3, 20ms);
            while (auto req = api.receive()) on_request(*req);
            for (int i = 0; i < 256; ++i) {
                std::optional<ipc::message> m;
                try {
                    m = ipc::recv_message(results, zmq::recv_flags::dontwait);
                } catch (const ipc::protocol_error& e) {
                    spdlog::warn("malformed message on the results socket dropped: {}", e.what());
                    continue;
                }
                if (!m) break;
                on_result(*m);
            }
            drain_replies(synthd, "synthd");
            for (auto& [gpu, socket] : gpuds) drain_replies(socket, "gpud");
            for (const auto& o : verifier_.take()) on_verified(o);
            dispatch();
            const auto now = ipc::realtime_ms();
            answer_expired_waiters(now);
            if (now - last_sweep >= 250) {
                check_timeouts(now);
                expire_results(now);
                last_sweep = now;
            }
            pulse.tick();
        }
        daemon::notify_stopping();
        return 0;
    }

private:
    // ---- recovery -------------------------------------------------------------------------------------
    void recover() {
        const auto path = spool_.journal_path();
        journal::replay(path, [&](const journal_record& r) { apply(r); });
        // Whatever was in flight when the previous process stopped is dispatched again; stages drop the
        // copies they still hold, and duplicate proofs are ignored.
        for (auto& [id, j] : jobs_) {
            if (j.terminal()) continue;
            for (auto& p : j.partitions)
                if (p.state != partition_state::proved) p.state = partition_state::pending;
        }
        journal_ = std::make_unique<journal>(path);
        journal_->rewrite(live_records());
        if (!jobs_.empty()) spdlog::info("journal {}: {} jobs recovered, next job id {}", path.string(), jobs_.size(), next_id_);
    }

    void apply(const journal_record& r) {
        auto need = [&](std::size_t n) {
            if (r.size() != n) throw std::runtime_error(fmt::format("{} fields, expected {}", r.size(), n));
        };
        auto id_of = [&](const std::string& s) { return static_cast<std::uint64_t>(std::stoull(s)); };
        const auto& type = r[0];
        if (type == "NEXT") {
            need(2);
            next_id_ = std::max(next_id_, id_of(r[1]));
            return;
        }
        if (type == "SUBMIT") {
            need(8);
            job j;
            j.id = id_of(r[1]);
            j.priority = std::stoi(r[2]);
            j.kind = static_cast<ipc::proof_kind>(std::stoi(r[3]));
            j.partitions.resize(std::stoul(r[4]));
            j.created_ms = id_of(r[5]);
            j.request_id = journal::unhex(from_dash(r[6]));
            j.input = r[7];
            try {
                load_input(j, (spool_.root() / j.input).string());
            } catch (const std::exception& e) {
                // The spool lost the input (deleted by hand?): the job cannot go on, the journal still can.
                finish(j, job_state::failed, fmt::format("job input lost from the spool: {}", e.what()), ipc::realtime_ms());
            }
            if (!j.request_id.empty()) by_request_[j.request_id] = j.id;
            next_id_ = std::max(next_id_, j.id + 1);
            seq_of_[j.id] = seq_++;
            jobs_[j.id] = std::move(j);
            return;
        }
        auto it = jobs_.find(id_of(r.at(1)));
        if (it == jobs_.end()) throw std::runtime_error("names a job without a SUBMIT record");
        job& j = it->second;
        if (type == "PROOF") {
            need(4);
            const auto p = std::stoul(r[2]);
            const auto bytes = journal::unhex(r[3]);
            if (p >= j.partitions.size() || bytes.size() != ipc::partition_proof_bytes)
                throw std::runtime_error("partition or proof size out of range");
            std::array<std::byte, ipc::partition_proof_bytes> proof;
            std::memcpy(proof.data(), bytes.data(), proof.size());
            j.partitions[p].proof = proof;
            j.partitions[p].state = partition_state::proved;
        } else if (type == "DONE" || type == "CANCELLED") {
            need(3);
            finish(j, type == "DONE" ? job_state::done : job_state::cancelled, "", id_of(r[2]));
        } else if (type == "FAILED") {
            need(4);
            finish(j, job_state::failed, journal::unhex(from_dash(r[3])), id_of(r[2]));
        } else if (type == "FETCHED") {
            need(3);
            mark_fetched(j, id_of(r[2]));
        } else if (type == "EXPIRED") {
            need(2);
            forget(j.id);
        } else {
            throw std::runtime_error("unknown record type");
        }
    }

    std::vector<journal_record> live_records() const {
        std::vector<journal_record> out{{"NEXT", std::to_string(next_id_)}};
        for (const auto& [id, j] : jobs_) {
            out.push_back(submit_record(j));
            for (std::size_t p = 0; p < j.partitions.size(); ++p)
                if (j.partitions[p].proof) out.push_back(proof_record(j, static_cast<std::uint32_t>(p)));
            const auto ms = std::to_string(j.finished_ms);
            if (j.state == job_state::done) out.push_back({"DONE", std::to_string(id), ms});
            if (j.state == job_state::cancelled) out.push_back({"CANCELLED", std::to_string(id), ms});
            if (j.state == job_state::failed) out.push_back({"FAILED", std::to_string(id), ms, or_dash(journal::hex(j.error))});
            if (j.fetched) out.push_back({"FETCHED", std::to_string(id), std::to_string(j.expires_ms - fetched_grace_ms)});
        }
        return out;
    }

    static journal_record submit_record(const job& j) {
        return {"SUBMIT", std::to_string(j.id), std::to_string(j.priority), std::to_string(static_cast<int>(j.kind)),
                std::to_string(j.partitions.size()), std::to_string(j.created_ms), or_dash(journal::hex(j.request_id)),
                j.input};
    }
    static journal_record proof_record(const job& j, std::uint32_t p) {
        const auto& proof = *j.partitions[p].proof;
        return {"PROOF", std::to_string(j.id), std::to_string(p),
                journal::hex(std::string_view(reinterpret_cast<const char*>(proof.data()), proof.size()))};
    }

    void finish(job& j, job_state state, std::string error, std::uint64_t at_ms) {
        j.state = state;
        j.error = std::move(error);
        j.finished_ms = at_ms;
        j.expires_ms = at_ms + ttl_ms_;
    }
    void mark_fetched(job& j, std::uint64_t at_ms) {
        j.fetched = true;
        j.expires_ms = std::min(j.expires_ms, at_ms + fetched_grace_ms);
    }
    void forget(std::uint64_t id) {
        auto it = jobs_.find(id);
        if (it == jobs_.end()) return;
        if (!it->second.request_id.empty()) by_request_.erase(it->second.request_id);
        seq_of_.erase(id);
        jobs_.erase(it);
    }

    // ---- client requests --------------------------------------------------------------------------------
    void on_request(daemon::routed_request& req) {
        const auto type = ipc::type_of(req.body);
        try {
            if (auto* m = std::get_if<ipc::submit_msg>(&req.body)) return on_submit(req, *m);
            if (auto* m = std::get_if<ipc::await_msg>(&req.body)) return on_await(req, *m);
            if (auto* m = std::get_if<ipc::cancel_msg>(&req.body)) return on_cancel(req, *m);
            if (std::holds_alternative<ipc::status_request_msg>(req.body))
                return api_->reply(req.envelope, ipc::status_reply_msg{status_json()});
            api_->reply_error(req.envelope, ipc::error_code::bad_request, type,
                              fmt::format("assemblerd's API takes SUBMIT, AWAIT, CANCEL and STATUS_REQUEST, not {}",
                                          ipc::to_string(type)));
        } catch (const input_error& e) {
            api_->reply_error(req.envelope, ipc::error_code::bad_request, type, e.what());
        } catch (const std::exception& e) {
            spdlog::error("{} failed: {}", ipc::to_string(type), e.what());
            api_->reply_error(req.envelope, ipc::error_code::internal, type, e.what());
        }
    }

    std::size_t pending_jobs() const {
        return static_cast<std::size_t>(std::count_if(jobs_.begin(), jobs_.end(), [](const auto& e) { return !e.second.terminal(); }));
    }

    void on_submit(daemon::routed_request& req, const ipc::submit_msg& m) {
        if (!m.client_request_id.empty()) {
            if (auto it = by_request_.find(m.client_request_id); it != by_request_.end()) {
                return api_->reply(req.envelope, ipc::submit_reply_msg{m.client_request_id, it->second, true});
            }
        }
        if (m.kind != ipc::proof_kind::test_circuit && m.kind != ipc::proof_kind::porep_c2) {
            throw input_error(fmt::format("proof kind {} is not proved by this service yet (porep-c2 and "
                                          "test-circuit jobs are)",
                                          ipc::to_string(m.kind)));
        }
        if (pending_jobs() >= config_.assemblerd.max_pending_jobs) {
            return api_->reply_error(req.envelope, ipc::error_code::queue_full, ipc::message_type::submit,
                                     fmt::format("{} jobs pending ([assemblerd] max_pending_jobs = {}); retry later",
                                                 pending_jobs(), config_.assemblerd.max_pending_jobs));
        }
        job j;
        j.id = next_id_;
        j.request_id = m.client_request_id;
        j.kind = m.kind;
        j.priority = m.priority;
        j.created_ms = ipc::realtime_ms();
        j.input = spool_.take_input(j.id, m.source, m.c1_path);  // throws input_error naming the file
        try {
            // A C1 is checked here (parse, consistency, registered proof): a bad one is refused now, its
            // error naming the client's file and the JSON path, not found out partitions later.
            load_input(j, m.c1_path);
        } catch (...) {
            spool_.remove_job(j.id);
            throw;
        }
        j.partitions.resize(j.porep ? j.porep->partitions() : j.test_input.partitions);
        ++next_id_;
        journal_->append(submit_record(j));
        seq_of_[j.id] = seq_++;
        if (!j.request_id.empty()) by_request_[j.request_id] = j.id;
        tl::emit(tl::event::job_submit, std::to_string(j.id),
                 {{"partitions", std::to_string(j.partitions.size())}, {"priority", std::to_string(j.priority)},
                  {"circuit", j.circuit()}});
        spdlog::info("job {} submitted: {} x {} (priority {}{})", j.id, j.partitions.size(), j.circuit(),
                     j.priority, j.request_id.empty() ? "" : ", request " + j.request_id);
        const auto id = j.id;
        jobs_[id] = std::move(j);
        api_->reply(req.envelope, ipc::submit_reply_msg{m.client_request_id, id, false});
    }

    // Reads the job's spooled input by its kind; |source| names it in errors (the client's own path at
    // submission). Throws input_error.
    void load_input(job& j, const std::string& source) const {
        const auto path = spool_.root() / j.input;
        if (j.kind == ipc::proof_kind::porep_c2) {
            j.porep = daemon::read_porep_job_input(path, source, false);
        } else {
            try {
                j.test_input = daemon::read_test_job_input(path);
            } catch (const input_error& e) {
                if (source == path.string()) throw;
                throw input_error(fmt::format("{} (submitted as {})", e.what(), source));
            }
        }
    }

    ipc::await_reply_msg reply_for(job& j) {
        ipc::await_reply_msg r;
        r.job_id = j.id;
        r.state = j.state;
        r.partitions_done = j.proved();
        r.partitions_total = static_cast<std::uint32_t>(j.partitions.size());
        r.error = j.error;
        if (j.state == job_state::done) {
            r.result_path = spool_.result_path(j.id).string();
            for (const auto& p : j.partitions) r.proof.insert(r.proof.end(), p.proof->begin(), p.proof->end());
            if (!j.fetched) {
                const auto now = ipc::realtime_ms();
                journal_->append({"FETCHED", std::to_string(j.id), std::to_string(now)});
                mark_fetched(j, now);
            }
        }
        return r;
    }

    void on_await(daemon::routed_request& req, const ipc::await_msg& m) {
        auto it = jobs_.find(m.job_id);
        if (it == jobs_.end()) {
            return api_->reply_error(req.envelope, ipc::error_code::unknown_job, ipc::message_type::await,
                                     fmt::format("no job {} (never submitted, or its result expired)", m.job_id));
        }
        if (it->second.terminal() || m.timeout_ms == 0) return api_->reply(req.envelope, reply_for(it->second));
        waiters_.push_back({std::move(req.envelope), m.job_id, ipc::realtime_ms() + m.timeout_ms});
    }

    void on_cancel(daemon::routed_request& req, const ipc::cancel_msg& m) {
        auto it = jobs_.find(m.job_id);
        if (it == jobs_.end()) {
            return api_->reply_error(req.envelope, ipc::error_code::unknown_job, ipc::message_type::cancel,
                                     fmt::format("no job {} to cancel", m.job_id));
        }
        job& j = it->second;
        if (!j.terminal()) {
            const auto now = ipc::realtime_ms();
            journal_->append({"CANCELLED", std::to_string(j.id), std::to_string(now)});
            finish(j, job_state::cancelled, "cancelled by request", now);
            stop_in_stages(j.id);
            spdlog::info("job {} cancelled ({} of {} partitions were proved)", j.id, j.proved(), j.partitions.size());
            answer_waiters(j);
        }
        api_->reply(req.envelope, reply_for(j));
    }

    void stop_in_stages(std::uint64_t id) {
        (void)ipc::send_message(*synthd_, ipc::cancel_msg{id}, zmq::send_flags::dontwait);
        // Every gpud: each may be proving a partition of the job. A gpud that is down (its socket file left
        // behind) gets the cancel when it binds again.
        find_gpuds();
        for (auto& [gpu, socket] : *gpuds_) (void)ipc::send_message(socket, ipc::cancel_msg{id}, zmq::send_flags::dontwait);
        // READY slots are freed here too, so a cancel frees the ring even while gpud is down.
        ring_.discard_ready(id);
    }

    void answer_waiters(job& j) {
        for (auto it = waiters_.begin(); it != waiters_.end();) {
            if (it->job_id == j.id) {
                api_->reply(it->envelope, reply_for(j));
                it = waiters_.erase(it);
            } else {
                ++it;
            }
        }
    }

    void answer_expired_waiters(std::uint64_t now) {
        for (auto it = waiters_.begin(); it != waiters_.end();) {
            if (it->deadline_ms <= now) {
                auto j = jobs_.find(it->job_id);
                if (j != jobs_.end()) api_->reply(it->envelope, reply_for(j->second));
                else api_->reply_error(it->envelope, ipc::error_code::unknown_job, ipc::message_type::await, "job expired");
                it = waiters_.erase(it);
            } else {
                ++it;
            }
        }
    }

    // ---- stage results ----------------------------------------------------------------------------------
    job* live_job(std::uint64_t id) {
        auto it = jobs_.find(id);
        return it == jobs_.end() || it->second.terminal() ? nullptr : &it->second;
    }

    void on_result(const ipc::message& m) {
        const auto now = ipc::realtime_ms();
        if (auto* r = std::get_if<ipc::slot_ready_msg>(&m)) {
            job* j = live_job(r->job_id);
            if (!j || r->partition >= j->partitions.size()) return;
            auto& p = j->partitions[r->partition];
            if (p.state != partition_state::proved) {
                p.state = partition_state::synthesized;
                p.since_ms = now;
            }
        } else if (auto* r = std::get_if<ipc::partition_proof_msg>(&m)) {
            on_partition_proof(*r);
        } else if (auto* r = std::get_if<ipc::partition_failed_msg>(&m)) {
            on_partition_failed(*r);
        } else if (auto* r = std::get_if<ipc::stage_hello_msg>(&m)) {
            on_hello(*r);
        } else {
            spdlog::warn("unexpected {} on the results socket dropped", ipc::to_string(ipc::type_of(m)));
        }
    }

    // Connects a DEALER to each gpud socket in the runtime directory not connected yet: at start, when a gpud
    // says hello (it binds before), and before a cancel is sent. Sockets stay: a gpud that restarts binds the
    // same name and ZeroMQ reconnects.
    void find_gpuds() {
        for (const int gpu : ipc::gpud_sockets_in(config_.runtime.dir)) {
            if (gpuds_->count(gpu)) continue;
            const auto endpoint = config_.endpoint(ipc::gpud_socket_name(gpu));
            gpuds_->emplace(gpu, daemon::connect_socket(*context_, zmq::socket_type::dealer, endpoint));
            spdlog::info("gpud of GPU {} at {}", gpu, endpoint);
        }
    }

    void on_hello(const ipc::stage_hello_msg& h) {
        if (h.from == ipc::stage::gpud) {
            // gpud's work lives in the ring, which any gpud reclaims from a dead one: nothing to dispatch again.
            spdlog::info("gpud (pid {}) started", h.pid);
            return find_gpuds();
        }
        const std::pair<std::int32_t, std::uint64_t> identity{h.pid, h.started_ms};
        if (synthd_identity_ == identity) return;
        synthd_identity_ = identity;
        spdlog::info("{} (pid {}) started", ipc::to_string(h.from), h.pid);
        std::size_t again = 0;
        for (auto& [id, j] : jobs_) {
            if (j.terminal()) continue;
            // Only what was handed out before this synthd started: later dispatches went to it (the hello
            // can arrive after them when synthd connected before this socket was bound).
            for (auto& p : j.partitions)
                if (p.state == partition_state::dispatched && p.since_ms < h.started_ms) {
                    p.state = partition_state::pending;
                    ++again;
                }
        }
        if (again) spdlog::info("{} partitions handed to the previous synthd are dispatched again", again);
    }

    void on_partition_proof(const ipc::partition_proof_msg& r) {
        job* j = live_job(r.job_id);
        if (!j || r.partition >= j->partitions.size()) return;
        auto& p = j->partitions[r.partition];
        if (p.state == partition_state::proved) {
            ++duplicates_;
            spdlog::debug("job {} partition {}: duplicate proof ignored", j->id, r.partition);
            return;
        }
        p.proof = r.proof;
        p.state = partition_state::proved;
        journal_->append(proof_record(*j, r.partition));
        tl::emit(tl::event::partition_done, std::to_string(j->id),
                 {{"partition", std::to_string(r.partition)}, {"worker", std::to_string(r.timings.worker)},
                  {"ms", std::to_string(r.timings.gpu_us / 1000)}});
        if (j->proved() == j->partitions.size()) complete(*j);
    }

    // Not retryable: the input is bad, the job fails. Retryable (a stage's problem: a GPU that failed, a slot
    // taken away): dispatched again, until the partition has failed max_partition_attempts times; then the job
    // fails with the last error, so a GPU that fails a partition every time (or one too large for its memory)
    // ends the job instead of sending the partition round forever. The count is partition_progress's (in
    // memory: an assemblerd restart starts it again, see job.hpp).
    void on_partition_failed(const ipc::partition_failed_msg& r) {
        job* j = live_job(r.job_id);
        if (!j || r.partition >= j->partitions.size()) return;
        auto& p = j->partitions[r.partition];
        if (p.state == partition_state::proved) return;
        if (!r.retryable) return fail_job(*j, fmt::format("partition {}: {}", r.partition, r.error));
        ++p.failed_attempts;
        const auto cap = config_.assemblerd.max_partition_attempts;
        if (p.failed_attempts >= cap)
            return fail_job(*j, fmt::format("partition {} failed {} times; last error: {}", r.partition,
                                            p.failed_attempts, r.error));
        spdlog::warn("job {} partition {}: {} (failed attempt {} of {}: dispatched again)", j->id, r.partition, r.error,
                     p.failed_attempts, cap);
        p.state = partition_state::pending;
    }

    // All partitions proved: verified on the verifier's thread (when configured), finished in on_verified.
    void complete(job& j) {
        if (!config_.assemblerd.verify) return finish_done(j);
        j.verifying = true;
        verifier_.submit(j);
    }

    void on_verified(const proof_verifier::outcome& o) {
        job* j = live_job(o.job_id);  // cancelled (or expired) meanwhile: nothing to do
        if (!j || !j->verifying) return;
        j->verifying = false;
        if (!o.error.empty()) return fail_job(*j, fmt::format("verification could not run: {}", o.error));
        if (!o.invalid.empty())
            return fail_job(*j, fmt::format("partition proofs {} do not verify", fmt::join(o.invalid, ", ")));
        finish_done(*j);
    }

    void finish_done(job& j) {
        std::vector<std::byte> proof;
        for (const auto& p : j.partitions) proof.insert(proof.end(), p.proof->begin(), p.proof->end());
        spool_.write_result(j.id, proof);
        const auto now = ipc::realtime_ms();
        journal_->append({"DONE", std::to_string(j.id), std::to_string(now)});
        finish(j, job_state::done, "", now);
        tl::emit(tl::event::job_done, std::to_string(j.id),
                 {{"partitions", std::to_string(j.partitions.size())}, {"ms", std::to_string(now - j.created_ms)}});
        spdlog::info("job {} done: {} partitions{} in {} ms", j.id, j.partitions.size(),
                     config_.assemblerd.verify ? ", verified" : "", now - j.created_ms);
        answer_waiters(j);
    }

    void fail_job(job& j, std::string error) {
        const auto now = ipc::realtime_ms();
        journal_->append({"FAILED", std::to_string(j.id), std::to_string(now), or_dash(journal::hex(error))});
        spdlog::error("job {} failed: {}", j.id, error);
        finish(j, job_state::failed, std::move(error), now);
        stop_in_stages(j.id);
        answer_waiters(j);
    }

    // ---- dispatch and re-dispatch -----------------------------------------------------------------------
    void dispatch() {
        std::uint32_t in_synthesis = 0;
        std::vector<job*> order;
        for (auto& [id, j] : jobs_) {
            if (j.terminal()) continue;
            order.push_back(&j);
            for (const auto& p : j.partitions) in_synthesis += p.state == partition_state::dispatched;
        }
        if (in_synthesis >= window_) return;
        std::sort(order.begin(), order.end(), [&](const job* a, const job* b) {
            return a->priority != b->priority ? a->priority > b->priority : seq_of_[a->id] < seq_of_[b->id];
        });
        const auto now = ipc::realtime_ms();
        for (job* j : order) {
            ipc::job_msg m{j->id, j->kind, j->priority, static_cast<std::uint32_t>(j->partitions.size()), {},
                           (spool_.root() / j->input).string()};
            for (std::uint32_t p = 0; p < j->partitions.size() && in_synthesis < window_; ++p) {
                auto& part = j->partitions[p];
                if (part.state != partition_state::pending) continue;
                part.state = partition_state::dispatched;
                part.since_ms = now;
                ++part.dispatches;
                ++in_synthesis;
                m.partitions.push_back(p);
            }
            if (!m.partitions.empty()) {
                j->state = job_state::running;
                (void)ipc::send_message(*synthd_, m, zmq::send_flags::dontwait);
            }
            if (in_synthesis >= window_) break;
        }
    }

    void check_timeouts(std::uint64_t now) {
        for (auto& [id, j] : jobs_) {
            if (j.terminal()) continue;
            for (std::uint32_t p = 0; p < j.partitions.size(); ++p) {
                auto& part = j.partitions[p];
                if ((part.state == partition_state::dispatched || part.state == partition_state::synthesized) &&
                    now - part.since_ms > timeout_ms_) {
                    spdlog::warn("job {} partition {}: no news for {} ms (partition_timeout_s), dispatched again", id,
                                 p, now - part.since_ms);
                    part.state = partition_state::pending;
                }
            }
        }
    }

    void expire_results(std::uint64_t now) {
        std::vector<std::uint64_t> expired;
        for (const auto& [id, j] : jobs_)
            if (j.terminal() && j.expires_ms <= now) expired.push_back(id);
        for (auto id : expired) {
            journal_->append({"EXPIRED", std::to_string(id)});
            spool_.remove_job(id);
            forget(id);
            spdlog::info("job {}: result expired and removed", id);
        }
    }

    void drain_replies(zmq::socket_t& socket, const char* stage) {
        for (;;) {
            try {
                auto m = ipc::recv_message(socket, zmq::recv_flags::dontwait);
                if (!m) return;
                if (auto* e = std::get_if<ipc::error_reply_msg>(&*m)) spdlog::error("{} refused a request: {}", stage, e->text);
            } catch (const ipc::protocol_error& e) {
                spdlog::warn("malformed reply from {}: {}", stage, e.what());
            }
        }
    }

    // ---- status -----------------------------------------------------------------------------------------
    std::string status_json() const {
        nlohmann::json j;
        j["stage"] = "assemblerd";
        j["pid"] = ::getpid();
        j["pending_jobs"] = pending_jobs();
        j["max_pending_jobs"] = config_.assemblerd.max_pending_jobs;
        j["duplicate_partition_proofs"] = duplicates_;
        j["verifying_jobs"] = verifier_.busy();
        auto& list = j["jobs"] = nlohmann::json::array();
        for (const auto& [id, job] : jobs_) {
            std::map<std::string, int> states;
            std::uint64_t failed_attempts = 0;
            for (const auto& p : job.partitions) {
                static const char* names[] = {"pending", "dispatched", "synthesized", "proved"};
                ++states[names[static_cast<int>(p.state)]];
                failed_attempts += p.failed_attempts;
            }
            nlohmann::json e{{"job", id},
                             {"state", ipc::to_string(job.state)},
                             {"priority", job.priority},
                             {"circuit", job.circuit()},
                             {"partitions_total", job.partitions.size()},
                             {"partitions_done", job.proved()},
                             {"partitions", states},
                             {"failed_attempts", failed_attempts}};
            if (!job.request_id.empty()) e["request_id"] = job.request_id;
            if (!job.error.empty()) e["error"] = job.error;
            list.push_back(e);
        }
        return j.dump();
    }

    const daemon::config& config_;
    spool spool_;
    ipc::partition_ring ring_;
    const std::uint32_t window_;
    const std::uint64_t timeout_ms_, ttl_ms_;
    std::unique_ptr<journal> journal_;
    std::map<std::uint64_t, job> jobs_;
    std::map<std::string, std::uint64_t> by_request_;
    std::map<std::uint64_t, std::uint64_t> seq_of_;  // FIFO order within a priority
    std::uint64_t seq_ = 0;
    std::uint64_t next_id_ = 1;
    std::uint64_t duplicates_ = 0;
    std::vector<waiter> waiters_;
    std::pair<std::int32_t, std::uint64_t> synthd_identity_{0, 0};
    proof_verifier verifier_{config_.gpud.params_dir};
    daemon::request_router* api_ = nullptr;
    zmq::socket_t* synthd_ = nullptr;
    zmq::context_t* context_ = nullptr;
    std::map<int, zmq::socket_t>* gpuds_ = nullptr;  // see find_gpuds
};

}  // namespace

int serve(const daemon::config& c) {
    assembler_service service(c);
    return service.run();
}

}  // namespace cuzk::assemblerd
