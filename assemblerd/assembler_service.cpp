#include "assemblerd/assembler_service.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "assemblerd/client_requests.hpp"
#include "assemblerd/dispatcher.hpp"
#include "assemblerd/job_completion.hpp"
#include "assemblerd/job_table.hpp"
#include "assemblerd/journal.hpp"
#include "assemblerd/journal_records.hpp"
#include "api/api_server.hpp"
#include "assemblerd/proof_verifier.hpp"
#include "assemblerd/service_metrics.hpp"
#include "assemblerd/spool.hpp"
#include "assemblerd/stage_results.hpp"
#include "assemblerd/stage_sockets.hpp"
#include "assemblerd/waiting_clients.hpp"
#include "common/daemon/systemd_notify.hpp"
#include "daemon/event_poll.hpp"
#include "daemon/instance_lock.hpp"
#include "daemon/metrics_http.hpp"
#include "daemon/request_router.hpp"
#include "daemon/service_status.hpp"
#include "daemon/service_pulse.hpp"
#include "daemon/shutdown_signal.hpp"
#include "ipc/clock.hpp"
#include "ipc/endpoints.hpp"
#include "ipc/message_socket.hpp"

namespace cuzk::assemblerd {

namespace {

using namespace std::chrono_literals;
namespace jr = journal_records;

class assembler_service {
public:
    explicit assembler_service(const daemon::config& c)
        : config_(c),
          spool_(c.runtime.spool_dir),
          jobs_(static_cast<std::uint64_t>(c.assemblerd.result_ttl_s * 1000)) {}

    int run() {
        daemon::instance_lock lock(config_.runtime.dir, "assemblerd");
        replay_journal();
        journal log(spool_.journal_path());
        compact(log, false);
        if (!jobs_.all().empty())
            spdlog::info("journal {}: {} jobs recovered, next job id {}", spool_.journal_path().string(),
                         jobs_.all().size(), jobs_.next_id());
        zmq::context_t context(1);
        // The front door: the service's group submits and awaits here (clients never reach the stages' sockets).
        daemon::request_router api(context, config_.endpoint(ipc::socket_names::api), ipc::socket_access::group);
        zmq::socket_t results(context, zmq::socket_type::pull);
        results.set(zmq::sockopt::linger, 0);
        results.bind(config_.endpoint(ipc::socket_names::results));
        ipc::restrict_to_owner(config_.endpoint(ipc::socket_names::results));
        stage_sockets stages(context, config_);  // closed before |context| is
        proof_verifier verifier(config_.gpud.params_dir);
        waiting_clients waiting(api, jobs_, log, spool_);
        service_metrics metrics;
        job_completion completion(config_, jobs_, log, spool_, verifier, stages, waiting, metrics);
        const auto window = config_.effective_dispatch_window();
        dispatcher dispatch(jobs_, window, static_cast<std::uint64_t>(config_.assemblerd.partition_timeout_s * 1000),
                            spool_.root(), [&](const ipc::job_msg& m) { return stages.send_job(m); });
        stage_results reports(config_.assemblerd.max_partition_attempts, jobs_, log, dispatch, completion, stages,
                              metrics);
        // A C1 is checked against the circuit at submission when proofs are verified (synthetic C1s for timings
        // run with verify off, and would fail it).
        input_checker checker(spool_, config_.assemblerd.verify);
        client_requests requests(config_, api, jobs_, log, spool_, waiting, completion, verifier, reports, metrics,
                                 checker);
        // Both run on threads of their own and reach this loop through the request socket, as any client.
        const auto metrics_text = [&] {
            return metrics.render(daemon::collect_service_status(config_, std::chrono::milliseconds(2000)).json);
        };
        api::api_server grpc_api(config_, metrics_text);
        daemon::metrics_http http(metrics_text, [&] {
            return daemon::collect_service_status(config_, std::chrono::milliseconds(2000)).json.dump(2);
        });
        if (!config_.metrics.listen.empty()) {
            try {
                http.start(config_.metrics.listen);
                spdlog::info("metrics on http://{}/metrics, status on /status", config_.metrics.listen);
            } catch (const std::exception& e) {
                // Proving matters more than its metrics: the service runs on, saying so.
                spdlog::error("[metrics] listen: {}; the service runs without the HTTP endpoint", e.what());
            }
        }

        stages.find_gpuds();
        // Jobs whose last proof was journaled before the previous process could finish them.
        for (auto& [id, j] : jobs_.all())
            if (!j.terminal() && !j.partitions.empty() && j.proved() == j.partitions.size()) completion.complete(j);
        daemon::notify_ready();
        daemon::service_pulse pulse;
        spdlog::info("assemblerd serving on {} ({} jobs recovered, dispatch window {}, verify {})",
                     config_.endpoint(ipc::socket_names::api), jobs_.all().size(), window, config_.assemblerd.verify);
        // gpud sockets come and go with the gpuds; their replies (errors only) are drained each turn.
        zmq::pollitem_t items[] = {{api.socket().handle(), 0, ZMQ_POLLIN, 0},
                                   {results.handle(), 0, ZMQ_POLLIN, 0},
                                   {stages.synthd().handle(), 0, ZMQ_POLLIN, 0}};
        std::uint64_t last_sweep = 0;
        while (!daemon::shutdown_requested()) {
            daemon::poll_once(items, 3, 20ms);
            while (auto req = api.receive()) requests.on_request(*req);
            for (int i = 0; i < 256; ++i) {
                std::optional<ipc::message> m;
                try {
                    m = ipc::recv_message(results, zmq::recv_flags::dontwait);
                } catch (const ipc::protocol_error& e) {
                    spdlog::warn("malformed message on the results socket dropped: {}", e.what());
                    continue;
                }
                if (!m) break;
                reports.on_result(*m);
            }
            stages.drain_replies();
            for (const auto& o : verifier.take()) completion.on_verified(o);
            requests.on_checked();
            const auto now = ipc::realtime_ms();
            stages.retry_cancels(now);
            dispatch.dispatch(now);
            waiting.answer_expired(now);
            if (now - last_sweep >= 250) {
                completion.retry_writes();
                dispatch.check_timeouts(now);
                expire_results(log, now);
                if (log.bytes() >= journal_compacted_bytes_ + config_.assemblerd.journal_compact_kib * 1024)
                    compact(log, true);
                last_sweep = now;
            }
            pulse.tick();
        }
        daemon::notify_stopping();
        grpc_api.stop();
        http.stop();
        return 0;
    }

private:
    void replay_journal() {
        const auto load = [&](job& j) { spool_.load_input(j, (spool_.root() / j.input).string()); };
        journal::replay(spool_.journal_path(), [&](const journal_record& r) { jobs_.apply(jr::decode(r), load); });
        // Whatever was in flight when the previous process stopped is dispatched again; stages drop the
        // copies they still hold, and duplicate proofs are ignored.
        for (auto& [id, j] : jobs_.all()) {
            if (j.terminal()) continue;
            for (auto& p : j.partitions)
                if (p.state != partition_state::proved) p.state = partition_state::pending;
        }
    }

    // Rewrites the journal with the records of the jobs kept, so it stays proportional to them: at start, and
    // between two turns of the loop once it has grown by journal_compact_kib (the job table holds every record
    // appended so far, so the rewritten journal replays to the same jobs). A rewrite that fails leaves the
    // journal as it was: the same jobs replay, only its size waits (for the next start, or as much growth again).
    void compact(journal& log, bool while_running) {
        const auto before = log.bytes();
        std::vector<journal_record> records;
        for (const auto& r : jobs_.live_records()) records.push_back(jr::encode(r));
        try {
            log.rewrite(records);
            if (while_running)
                spdlog::info("journal {} compacted while running: {} -> {} bytes ({} jobs kept)",
                             spool_.journal_path().string(), before, log.bytes(), jobs_.all().size());
        } catch (const std::exception& e) {
            spdlog::warn("journal not compacted: {}; going on with it as it is", e.what());
        }
        journal_compacted_bytes_ = std::min(before, log.bytes());
    }

    void expire_results(journal& log, std::uint64_t now) {
        for (const auto id : jobs_.expired(now)) {
            try {
                log.append(jr::encode(jr::expired{id}));
            } catch (const std::exception& e) {
                spdlog::warn("job {}: EXPIRED record not journaled ({}); kept until the next sweep", id, e.what());
                continue;
            }
            spool_.remove_job(id);
            jobs_.forget(id);
            spdlog::info("job {}: result expired and removed", id);
        }
    }

    const daemon::config& config_;
    spool spool_;
    job_table jobs_;
    std::uint64_t journal_compacted_bytes_ = 0;  // the journal's size after its last rewrite
};

}  // namespace

int serve(const daemon::config& c) {
    assembler_service service(c);
    return service.run();
}

}  // namespace cuzk::assemblerd
