#include "synthd/synth_service.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "common/circuits/registry.hpp"
#include "common/daemon/systemd_notify.hpp"
#include "common/daemon/timeline.hpp"
#include "common/witness/witness_assignment.hpp"
#include "common/porep/porep_circuit.hpp"
#include "common/post/parallel_synthesis.hpp"
#include "common/util/errors.hpp"
#include "daemon/event_poll.hpp"
#include "daemon/instance_lock.hpp"
#include "daemon/outbox.hpp"
#include "daemon/partition_witness.hpp"
#include "daemon/porep_job_input.hpp"
#include "daemon/request_router.hpp"
#include "daemon/ring_setup.hpp"
#include "daemon/service_pulse.hpp"
#include "daemon/shutdown_signal.hpp"
#include "daemon/test_job_input.hpp"
#include "daemon/update_job_input.hpp"
#include "ipc/endpoints.hpp"
#include "ipc/shm_segment.hpp"
#include "synthd/job_intake.hpp"
#include "synthd/witness_floors.hpp"
#include "synthd/work_queue.hpp"

namespace cuzk::synthd {

namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
namespace tl = cuzk::timeline;

std::string job_name(std::uint64_t id) { return std::to_string(id); }

class synth_service {
public:
    explicit synth_service(const daemon::config& c)
        : config_(c),
          writer_(daemon::open_ring_writer(c)),
          budget_bytes_(c.synthd.memory_budget_mib << 20),
          post_arena_(int(std::max(1u, c.synthd.threads))) {}

    // Threads that are blocked (ring full) still count: the JSON tells an operator why synthesis stalls.
    std::string status_json() const {
        nlohmann::json j;
        j["stage"] = "synthd";
        j["pid"] = ::getpid();
        j["threads"] = config_.synthd.threads;
        j["queued"] = queue_.queued();
        j["jobs_waiting_to_be_read"] = intake_.waiting();
        j["in_progress"] = queue_.in_progress();
        j["waiting_for_slot"] = waiting_for_slot_.load();
        j["memory_held_bytes"] = held_bytes_.load();
        j["memory_budget_bytes"] = budget_bytes_;
        j["synthesized"] = synthesized_.load();
        const auto& ring = writer_.ring();
        const auto counters = ring.counters();
        j["ring"] = {{"name", config_.ring.name},      {"slots", ring.slot_count()},
                     {"slot_bytes", ring.slot_bytes()}, {"full_claims", counters.full_claims},
                     {"commits", counters.commits}};
        return j.dump();
    }

    // |post_lane|: this thread takes only partitions of WindowPoSt's priority or above, so that a PoSt starts at
    // once even while every other thread is busy with (or blocked on a slot for) PoRep partitions.
    void worker(unsigned index, bool post_lane) {
        while (!daemon::shutdown_requested()) {
            // Memory budget: witnesses already synthesized and waiting for a slot hold memory. Past it, only a
            // partition of WindowPoSt's priority or above starts: a PoSt is never held back by PoRep's witnesses.
            const bool over_budget = held_bytes_.load() >= budget_bytes_;
            auto item = over_budget || post_lane ? queue_.pop(100ms, post_priority_floor) : queue_.pop(100ms);
            if (!item) continue;
            synthesize_one(*item, index);
            queue_.done(item->job_id, item->partition);
        }
    }

    // The circuits of [gpud] preload (the proofs this machine expects), sized as synthd starts, in gpud's order
    // (WinningPoSt's first): each one's blank counting synthesis (witness_floors) otherwise comes between its first
    // job's arrival and its first synthesis: 41 ms for the 32 GiB WinningPoSt circuit on an H100 machine's first
    // proof after a restart, 4.2 s for the 32 GiB PoRep one. A job of a shape being sized waits for that count.
    void size_preloaded_circuits() {
        for (const auto& spec : daemon::gpud_preload_specs(config_)) {
            if (daemon::shutdown_requested()) return;
            const auto t0 = steady::now();
            try {
                const auto floor = floors_.of(spec);
                spdlog::info("{} ([gpud] preload) sized as synthd started: a witness of at least {}, counted in {} ms",
                             spec, ipc::format_bytes(floor),
                             std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - t0).count());
            } catch (const std::exception& e) {
                spdlog::warn("{} ([gpud] preload) could not be sized: {} (its first partition tries again)", spec,
                             e.what());
            }
        }
    }

    void synthesize_one(const work_item& item, unsigned worker) {
        const auto job = job_name(item.job_id);
        const auto part = std::to_string(item.partition);
        if (cancelled(item.job_id)) return;
        // Before synthesis: a witness that cannot fit a slot even with every aux value a bit is refused here.
        try {
            const auto floor = floors_.of(item.circuit_spec);
            if (floor > writer_.ring().slot_bytes()) {
                fail(item, false,
                     fmt::format("partition witness of {} needs at least {} (every aux value a bit), a ring slot "
                                 "holds {}: raise [ring] slot_bytes to at least {}",
                                 item.circuit_spec, ipc::format_bytes(floor),
                                 ipc::format_bytes(writer_.ring().slot_bytes()), floor));
                return;
            }
        } catch (const std::exception& e) {
            fail(item, false, fmt::format("circuit {} cannot be sized: {}", item.circuit_spec, e.what()));
            return;
        }
        const auto t0 = steady::now();
        tl::emit(tl::event::synth_start, job, {{"partition", part}, {"worker", std::to_string(worker)}});
        // Only the witness: a, b and c are computed by gpud from the circuit's matrices. Reused per thread, so a
        // thread synthesizing partition after partition allocates only while one outgrows the one before.
        thread_local witness::witness_assignment reused;
        // A PoSt witness is freed once written: a 32 GiB WindowPoSt's is GBs (its Poseidon values are nearly all
        // full field elements), which a thread should not keep after it.
        witness::witness_assignment fresh;
        witness::witness_assignment& pa = item.post ? fresh : reused;
        pa.clear();
        try {
            if (item.porep) {
                const porep::porep_partition_circuit circuit(*item.porep->proof,
                                                             item.porep->partition_witness(item.partition),
                                                             item.porep->partition_inputs(item.partition));
                circuit.synthesize(pa);
            } else if (item.update) {
                item.update->circuits->at(item.partition).synthesize(pa);
            } else if (item.post) {
                // Sector slots in parallel on synthd's threads: a 32 GiB WindowPoSt partition (2,349 slots) is
                // not left to one thread while its deadline runs.
                // One WindowPoSt at a time: each already takes every arena thread, and a 32 GiB one holds ~8 GB
                // while its parts are joined (its witness 4 GB), so several at once (PoSt starts past the memory
                // budget) would only add up memory. A WinningPoSt (66 slots, MBs) does not wait for them.
                std::unique_lock one_window_at_a_time(window_synthesis_, std::defer_lock);
                if (item.post->proof->kind == post::post_kind::window) one_window_at_a_time.lock();
                post_arena_.execute([&] { post::synthesize_witness_parallel(*item.post->circuit, pa); });
            } else {
                circuits::make_circuit(item.circuit_spec)->synthesize(pa);
            }
        } catch (const std::exception& e) {
            fail(item, false, fmt::format("synthesis of {} failed: {}", item.circuit_spec, e.what()));
            return;
        }
        const auto synth_us = std::chrono::duration_cast<std::chrono::microseconds>(steady::now() - t0).count();
        tl::emit(tl::event::synth_end, job,
                 {{"partition", part}, {"worker", std::to_string(worker)}, {"ms", std::to_string(synth_us / 1000)}});
        const auto bytes = daemon::witness_bytes(pa);
        if (bytes > writer_.ring().slot_bytes()) {
            fail(item, false,
                 fmt::format("partition witness of {} needs {} bytes, a ring slot holds {}: raise [ring] slot_bytes",
                             item.circuit_spec, bytes, writer_.ring().slot_bytes()));
            return;
        }
        held_bytes_ += bytes;
        ++waiting_for_slot_;
        std::optional<ipc::write_claim> claim;
        // The ring is full while gpud is behind: wait (futex) in short turns to notice cancel and shutdown.
        while (!claim && !daemon::shutdown_requested() && !cancelled(item.job_id)) {
            claim = writer_.claim_for_write(item.job_id, item.partition, 100ms, slots_kept_free(item));
        }
        --waiting_for_slot_;
        if (!claim) {
            held_bytes_ -= bytes;
            return;
        }
        std::uint64_t used = 0;
        try {
            used = daemon::write_witness(claim->payload, pa, item.circuit_spec);
        } catch (const std::exception& e) {
            abort_slot(*claim, item, "a failed write");
            held_bytes_ -= bytes;
            fail(item, false, e.what());
            return;
        }
        held_bytes_ -= bytes;
        if (cancelled(item.job_id)) {
            abort_slot(*claim, item, "a cancel");
            return;
        }
        // Stamped before the commit: the commit wakes gpud, whose GPU_PICKUP must not come out earlier.
        const auto ready_ms = tl::now_ms();
        const auto status = writer_.commit(*claim, used, daemon::witness_format, item.priority);
        if (status != ipc::transition_status::ok) {
            // The slot was taken from us (reclaimed as if this process were dead): the assembler re-dispatches.
            spdlog::error("commit of slot {} for job {} partition {} refused: {}", claim->slot, job, part,
                          ipc::to_string(status));
            fail(item, true, fmt::format("ring slot {} commit refused: {}", claim->slot, ipc::to_string(status)));
            return;
        }
        // A cancel that arrived between the check above and the commit: its discard may have run before the
        // commit, so the slot is freed here.
        if (cancelled(item.job_id)) {
            writer_.discard_ready(item.job_id);
            return;
        }
        ++synthesized_;
        tl::emit_at(ready_ms, tl::event::slot_ready, job,
                    {{"partition", part}, {"slot", std::to_string(claim->slot)}, {"bytes", std::to_string(used)}});
        results_.push(ipc::slot_ready_msg{item.job_id, item.partition, claim->slot, claim->generation, used,
                                          pa.num_inputs(), pa.num_aux(), pa.prover_rows(),
                                          static_cast<std::uint64_t>(synth_us)});
    }

    // A ring of three slots or more keeps one FREE for PoSt partitions: in steady state gpud is the bound and
    // PoRep witnesses wait for every slot that frees, so without it a WinningPoSt would wait behind them.
    std::uint32_t slots_kept_free(const work_item& item) const {
        return item.priority < post_priority_floor && writer_.ring().slot_count() >= 3 ? 1 : 0;
    }

    // A refused abort means the slot is ours no more (a reclaim_dead elsewhere judged this process dead): its
    // new holder owns its state, so nothing is left to undo; the log names the slot.
    void abort_slot(const ipc::write_claim& claim, const work_item& item, std::string_view after) {
        const auto status = writer_.abort(claim);
        if (status != ipc::transition_status::ok) {
            spdlog::warn("job {} partition {}: abort of ring slot {} (generation {}) after {} refused: {}", item.job_id,
                         item.partition, claim.slot, claim.generation, after, ipc::to_string(status));
        }
    }

    void fail(const work_item& item, bool retryable, std::string error) {
        spdlog::error("job {} partition {}: {}", item.job_id, item.partition, error);
        results_.push(ipc::partition_failed_msg{item.job_id, item.partition, retryable, std::move(error)});
    }

    bool cancelled(std::uint64_t job) const {
        std::lock_guard lock(cancel_mutex_);
        return cancelled_.count(job) != 0;
    }

    // A PoRep job's C1, parsed and checked once: later JOB messages of the job (re-dispatches, the rest of
    // its partitions) use the cached copy. The few most recent jobs are kept (job ids only grow); queued
    // partitions hold their own reference, so dropping an entry never pulls a C1 from under a worker.
    // Filled by the intake threads, outside the lock while they parse; a cancel (loop thread) erases.
    std::shared_ptr<const daemon::porep_job_input> porep_input(const ipc::job_msg& m) {
        {
            std::lock_guard lock(cache_mutex_);
            if (auto it = porep_cache_.find(m.job_id); it != porep_cache_.end()) return it->second;
        }
        auto in = std::make_shared<const daemon::porep_job_input>(
            daemon::read_porep_job_input(m.spool_path, m.spool_path, true));
        std::lock_guard lock(cache_mutex_);
        porep_cache_[m.job_id] = in;
        while (porep_cache_.size() > porep_cache_jobs) porep_cache_.erase(porep_cache_.begin());
        return in;
    }

    // A SnapDeals job's vanilla proofs, decoded once per job like a PoRep C1 (its partitions come in several JOB
    // messages), every partition's circuit built; not verified again: assemblerd checked them natively at
    // submission, and the spool is the service's.
    std::shared_ptr<const daemon::update_job_input> update_input(const ipc::job_msg& m) {
        {
            std::lock_guard lock(cache_mutex_);
            if (auto it = update_cache_.find(m.job_id); it != update_cache_.end()) return it->second;
        }
        auto in = std::make_shared<const daemon::update_job_input>(
            daemon::read_update_job_input(m.spool_path, m.spool_path, true, false));
        std::lock_guard lock(cache_mutex_);
        update_cache_[m.job_id] = in;
        while (update_cache_.size() > update_cache_jobs) update_cache_.erase(update_cache_.begin());
        return in;
    }

    // A JOB, on the loop thread: a kind this synthd proves is handed to the intake threads (job_intake.hpp).
    void on_job(daemon::request_router& router, daemon::routed_request& req, const ipc::job_msg& m) {
        const bool post_kind = m.kind == ipc::proof_kind::window_post || m.kind == ipc::proof_kind::winning_post;
        if (m.kind != ipc::proof_kind::test_circuit && m.kind != ipc::proof_kind::porep_c2 && !post_kind &&
            m.kind != ipc::proof_kind::snap_update) {
            router.reply_error(req.envelope, ipc::error_code::bad_request, ipc::message_type::job,
                               fmt::format("job {}: proof kind {} is not supported by this synthd (porep-c2, "
                                           "window-post, winning-post, snap-update and test-circuit only)",
                                           m.job_id, ipc::to_string(m.kind)));
            return;
        }
        intake_.push({std::move(req.envelope), m});
    }

    // An intake thread: each JOB's input read (once per job, cached), its partitions queued. |post_lane|: this one
    // reads only JOBs of a PoSt's priority or above, so a WinningPoSt is not read after a C1 parse in progress.
    void intake_loop(bool post_lane) {
        const std::int32_t floor = post_lane ? post_priority_floor : std::numeric_limits<std::int32_t>::min();
        while (!daemon::shutdown_requested()) {
            if (auto p = intake_.pop(100ms, floor)) take_job(*p);
        }
    }

    // An error for the sender of a JOB, answered from the loop thread (the router's socket is its alone).
    void refuse(pending_job& p, std::string text) {
        std::lock_guard lock(refusals_mutex_);
        refusals_.push_back({std::move(p.envelope), std::move(text)});
    }
    void send_refusals(daemon::request_router& router) {
        std::vector<std::pair<std::vector<zmq::message_t>, std::string>> due;
        {
            std::lock_guard lock(refusals_mutex_);
            due.swap(refusals_);
        }
        for (auto& [envelope, text] : due)
            router.reply_error(envelope, ipc::error_code::bad_request, ipc::message_type::job, std::move(text));
    }

    // Reads a JOB's input once and queues the listed partitions (all when the list is empty). Both intake threads
    // may run it at once (on different jobs, or on one job of a PoSt's priority): the caches and the work queue
    // take their own locks, and the queue takes a partition once.
    void take_job(pending_job& pending) {
        const ipc::job_msg& m = pending.job;
        const bool post_kind = m.kind == ipc::proof_kind::window_post || m.kind == ipc::proof_kind::winning_post;
        daemon::test_job_input input;
        std::shared_ptr<const daemon::porep_job_input> porep;
        std::shared_ptr<const daemon::post_job_input> post;
        std::shared_ptr<const daemon::update_job_input> update;
        try {
            if (m.kind == ipc::proof_kind::porep_c2) {
                porep = porep_input(m);
                input.circuit = porep->circuit();
                input.partitions = porep->partitions();
            } else if (post_kind) {
                // One partition, synthesized once: read (decoded, checked for shape) here, not cached. Not verified
                // again: assemblerd verified these vanilla proofs at submission, and the spool is the service's.
                post = std::make_shared<const daemon::post_job_input>(
                    daemon::read_post_job_input(m.spool_path, m.spool_path, true, false));
                input.circuit = post->circuit_spec();
                input.partitions = 1;
            } else if (m.kind == ipc::proof_kind::snap_update) {
                update = update_input(m);
                input.circuit = update->circuit_spec();
                input.partitions = update->partitions();
            } else {
                input = daemon::read_test_job_input(m.spool_path);
            }
        } catch (const std::exception& e) {
            for (auto p : m.partitions) results_.push(ipc::partition_failed_msg{m.job_id, p, false, e.what()});
            refuse(pending, e.what());
            return;
        }
        // Checked against the job's own input before anything is allocated per partition: a JOB claiming
        // millions of partitions is refused at once instead of queueing (or failing) each of them.
        if (m.partition_count != input.partitions) {
            refuse(pending, fmt::format("job {}: JOB says partition_count {}, but its input ({}) has {} partitions",
                                        m.job_id, m.partition_count, m.spool_path, input.partitions));
            return;
        }
        if (cancelled(m.job_id)) {
            // Cancelled while its input was read: nothing queued, and its input not kept. A job id seen again
            // after a cancel is a new dispatch only if the assembler says so: it never re-dispatches a
            // cancelled job, so the mark stays.
            std::lock_guard lock(cache_mutex_);
            porep_cache_.erase(m.job_id);
            update_cache_.erase(m.job_id);
            return;
        }
        std::vector<std::uint32_t> parts = m.partitions;
        if (parts.empty())
            for (std::uint32_t p = 0; p < m.partition_count; ++p) parts.push_back(p);
        // A partition whose witness is in the ring already (READY, or PROVING by a gpud, live or dead: a dead one's
        // is reclaimed READY) has its owner there: assemblerd dispatches it again after a restart without knowing,
        // and synthesizing it again would prove it twice. It is reported as synthesized instead.
        const auto in_ring = witnesses_in_ring(m.job_id);
        std::size_t queued = 0, found = 0;
        for (auto p : parts) {
            if (p >= input.partitions) {
                results_.push(ipc::partition_failed_msg{
                    m.job_id, p, false, fmt::format("partition {} is beyond the job's {}", p, input.partitions)});
                continue;
            }
            if (auto it = in_ring.find(p); it != in_ring.end()) {
                results_.push(ipc::slot_ready_msg{m.job_id, p, it->second.slot, it->second.generation,
                                                  it->second.payload_bytes});
                ++found;
                continue;
            }
            auto spec = porep || post || update ? input.circuit : input.partition_spec(p);
            queued += queue_.push({m.job_id, p, m.priority, std::move(spec), porep, post, update}) ? 1 : 0;
        }
        if (found)
            spdlog::info("job {}: {} of its partitions are in the ring already (READY or PROVING): not synthesized again",
                         m.job_id, found);
        spdlog::debug("job {}: {} of {} partitions queued ({} already here)", m.job_id, queued, parts.size(),
                      parts.size() - queued - found);
    }

    // The job's partitions whose witness is committed to the ring, by partition.
    std::map<std::uint32_t, ipc::slot_snapshot> witnesses_in_ring(std::uint64_t job_id) const {
        std::map<std::uint32_t, ipc::slot_snapshot> found;
        for (const auto& s : writer_.ring().snapshot())
            if (s.job_id == job_id && (s.state == ipc::slot_state::ready || s.state == ipc::slot_state::proving))
                found.emplace(s.partition, s);
        return found;
    }

    void on_cancel(const ipc::cancel_msg& m) {
        {
            std::lock_guard lock(cancel_mutex_);
            cancelled_.insert(m.job_id);
        }
        {
            std::lock_guard lock(cache_mutex_);
            porep_cache_.erase(m.job_id);
            update_cache_.erase(m.job_id);
        }
        const auto dropped = queue_.drop_job(m.job_id);
        const auto unread = intake_.drop_job(m.job_id);
        // Freed here as well as by gpud: a cancel frees the ring while no gpud runs.
        const auto freed = writer_.discard_ready(m.job_id);
        spdlog::info("job {} cancelled: {} queued partitions and {} unread JOB messages dropped, {} ready slots freed",
                     m.job_id, dropped, unread, freed);
    }

    int run() {
        daemon::instance_lock lock(config_.runtime.dir, "synthd");
        zmq::context_t context(1);
        daemon::request_router router(context, config_.endpoint(ipc::socket_names::synthd));
        auto results = daemon::connect_socket(context, zmq::socket_type::push, config_.endpoint(ipc::socket_names::results));
        // First in the outbox, so it leaves before any result of this process.
        results_.push(ipc::stage_hello_msg{ipc::stage::synthd, ::getpid(), static_cast<std::uint64_t>(tl::now_ms())});
        std::vector<std::thread> threads;
        for (unsigned i = 0; i < config_.synthd.threads; ++i) threads.emplace_back([this, i] { worker(i, false); });
        threads.emplace_back([this] { worker(config_.synthd.threads, true); });
        threads.emplace_back([this] { intake_loop(false); });
        threads.emplace_back([this] { intake_loop(true); });
        threads.emplace_back([this] { size_preloaded_circuits(); });
        daemon::notify_ready();
        daemon::service_pulse pulse;
        spdlog::info("synthd serving: {} threads and one for PoSt only, ring '{}' ({} slots of {} bytes)",
                     config_.synthd.threads,
                     config_.ring.name, writer_.ring().slot_count(), writer_.ring().slot_bytes());
        // Whatever ends the loop (signal or exception), the workers stop and are joined before the ring goes.
        struct joiner {
            synth_service& self;
            std::vector<std::thread>& threads;
            ~joiner() {
                daemon::request_shutdown();
                self.queue_.close();
                self.intake_.close();
                for (auto& t : threads)
                    if (t.joinable()) t.join();
            }
        } join_workers{*this, threads};
        zmq::pollitem_t items[] = {{router.socket().handle(), 0, ZMQ_POLLIN, 0}, {nullptr, results_.fd(), ZMQ_POLLIN, 0}};
        while (!daemon::shutdown_requested()) {
            daemon::poll_once(items, 2, 50ms);
            while (auto req = router.receive()) {
                if (auto* job = std::get_if<ipc::job_msg>(&req->body)) on_job(router, *req, *job);
                else if (auto* cancel = std::get_if<ipc::cancel_msg>(&req->body)) on_cancel(*cancel);
                else if (std::holds_alternative<ipc::status_request_msg>(req->body))
                    router.reply(req->envelope, ipc::status_reply_msg{status_json()});
                else
                    router.reply_error(req->envelope, ipc::error_code::bad_request, ipc::type_of(req->body),
                                       fmt::format("synthd does not take {} messages (JOB, CANCEL, STATUS_REQUEST)",
                                                   ipc::to_string(ipc::type_of(req->body))));
            }
            send_refusals(router);
            results_.send_to(results);
            pulse.tick();
        }
        daemon::notify_stopping();
        queue_.close();
        intake_.close();
        for (auto& t : threads) t.join();
        if (results_.send_to(results) != 0) {
            results_.drop_unsent("assemblerd dispatches a partition it has no news of again (when the next synthd "
                                 "says STAGE_HELLO, or after [assemblerd] partition_timeout_s); a SLOT_READY only "
                                 "reports progress, gpud finds the slot in the ring");
        }
        return 0;
    }

private:
    const daemon::config& config_;
    ipc::ring_writer writer_;
    work_queue queue_;
    witness_floors floors_;
    daemon::outbox results_;
    const std::uint64_t budget_bytes_;
    tbb::task_arena post_arena_;
    std::mutex window_synthesis_;  // held around a WindowPoSt partition's parallel synthesis  // [synthd] threads wide: a PoSt partition's sector slots are synthesized in it
    // The priority of a WindowPoSt job (the API's HIGH): partitions at or above it start past the memory budget.
    static constexpr std::int32_t post_priority_floor = ipc::post_priority_floor;
    std::atomic<std::uint64_t> held_bytes_{0};
    std::atomic<std::uint32_t> waiting_for_slot_{0};
    std::atomic<std::uint64_t> synthesized_{0};
    mutable std::mutex cancel_mutex_;
    std::set<std::uint64_t> cancelled_;
    static constexpr std::size_t porep_cache_jobs = 4;
    std::mutex cache_mutex_;  // the two caches: filled by the intake thread, erased by a cancel
    std::map<std::uint64_t, std::shared_ptr<const daemon::porep_job_input>> porep_cache_;
    static constexpr std::size_t update_cache_jobs = 4;
    std::map<std::uint64_t, std::shared_ptr<const daemon::update_job_input>> update_cache_;
    job_intake intake_;
    std::mutex refusals_mutex_;
    std::vector<std::pair<std::vector<zmq::message_t>, std::string>> refusals_;  // for the loop thread to send
};

}  // namespace

int serve(const daemon::config& c) {
    synth_service service(c);
    return service.run();
}

}  // namespace cuzk::synthd
