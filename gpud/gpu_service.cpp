#include "gpud/gpu_service.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <chrono>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "common/daemon/systemd_notify.hpp"
#include "common/daemon/timeline.hpp"
#include "common/groth16/proof.hpp"
#include "common/util/errors.hpp"
#include "daemon/cuda_lock_setup.hpp"
#include "daemon/event_poll.hpp"
#include "daemon/instance_lock.hpp"
#include "daemon/outbox.hpp"
#include "daemon/params_store.hpp"
#include "daemon/partition_witness.hpp"
#include "daemon/request_router.hpp"
#include "daemon/ring_setup.hpp"
#include "daemon/service_pulse.hpp"
#include "daemon/service_segment.hpp"
#include "daemon/shutdown_signal.hpp"
#include "gpud/fault_injection.hpp"
#include "gpud/params_requests.hpp"
#include "gpud/partition_failure.hpp"
#include "gpud/proving_backend.hpp"
#include "ipc/clock.hpp"
#include "ipc/cuda_lock.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::gpud {

namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
namespace tl = cuzk::timeline;

std::uint64_t us_since(steady::time_point t0) {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(steady::now() - t0).count());
}

// The backend [gpud] backend names, wrapped in the fault injector when CUZK_GPUD_INJECT_FAULTS asked for it
// (a test facility: a warning says so, `cuzk status` shows "<backend>+faults").
std::unique_ptr<proving_backend> backend_for(const daemon::config& c, const std::optional<fault_plan>& faults) {
    auto backend = make_backend(c.gpud.backend, c.gpud.gpu,
                                {.pinned_cache_bytes = c.gpud.pinned_cache_mib << 20,
                                 .pin_min_bytes = c.gpud.pin_min_mib << 20,
                                 .b_g2_on_gpu = c.gpud.b_g2_on_gpu,
                                 .placement = parse_params_placement(c.gpud.params_memory),
                                 .release_host_points = c.gpud.release_host_points,
                                 .sparse_streaming = c.gpud.sparse_streaming});
    if (!faults) return backend;
    spdlog::warn("[gpud] {}={}: fault injection is on (a test facility): the {} step of the {} backend fails with "
                 "injected CUDA errors{}; unset the variable to prove normally",
                 fault_injection_variable, faults->text(), to_string(faults->step), backend->name(),
                 faults->lost ? ", and the first one loses the CUDA context" : "");
    return std::make_unique<fault_injecting_backend>(std::move(backend), *faults);
}

struct worker_state {
    std::atomic<std::uint64_t> job{0};
    std::atomic<std::int64_t> partition{-1};
    std::atomic<const char*> phase{"idle"};
    std::atomic<std::uint64_t> proved{0};
    mutable std::mutex circuit_mutex;
    std::string circuit;  // the circuit spec of the partition held, once its witness is read

    void set_circuit(std::string spec) {
        std::lock_guard lock(circuit_mutex);
        circuit = std::move(spec);
    }
    std::string circuit_now() const {
        std::lock_guard lock(circuit_mutex);
        return circuit;
    }
};

class gpu_service {
public:
    gpu_service(const daemon::config& c, const std::optional<fault_plan>& faults)
        : config_(c),
          prover_(daemon::open_ring_prover(c)),
          lock_(daemon::open_cuda_lock(c)),
          backend_(backend_for(c, faults)),
          // A set's last user gone (after an evict), the backend's copy of it goes before the host one.
          params_(c.gpud.params_dir, [this](const groth16::parameters& p) { backend_->forget(p); },
                  c.gpud.synthetic_params ? daemon::params_store::missing_official::synthetic
                                          : daemon::params_store::missing_official::refused),
          workers_(c.gpud.workers + 1) {}  // the last: the WinningPoSt worker

    std::string status_json() const {
        nlohmann::json j;
        j["stage"] = "gpud";
        j["pid"] = ::getpid();
        j["gpu"] = config_.gpud.gpu;
        j["socket"] = ipc::gpud_socket_name(config_.gpud.gpu);
        j["backend"] = backend_->name();
        auto& bc = j["backend_counters"] = nlohmann::json::object();
        for (const auto& [name, value] : backend_->counters()) bc[name] = value;
        if (const auto d = backend_->device())
            j["device"] = {{"name", d->name}, {"total_bytes", d->total_bytes}, {"free_bytes", d->free_bytes}};
        else
            j["device"] = nullptr;
        auto& ps = j["params"] = nlohmann::json::array();
        for (const auto& set : params_.loaded())
            ps.push_back({{"circuit", set.circuit},
                          {"file", set.file.string()},
                          {"bytes", set.bytes},
                          {"users", set.users},
                          {"load_ms", set.load_ms},
                          {"synthetic", set.synthetic}});
        j["params_loading"] = params_.loading();
        const auto pinned = backend_->pinned();
        j["pinned"] = {{"bytes", pinned.bytes}, {"limit_bytes", pinned.limit_bytes}};
        auto worker_json = [&](std::size_t i) {
            const auto& w = workers_[i];
            nlohmann::json e{{"worker", i}, {"phase", w.phase.load()}, {"proved", w.proved.load()}};
            if (w.partition.load() >= 0) {
                e["job"] = w.job.load();
                e["partition"] = w.partition.load();
                if (auto circuit = w.circuit_now(); !circuit.empty()) e["circuit"] = std::move(circuit);
            }
            return e;
        };
        auto& ws = j["workers"] = nlohmann::json::array();
        for (std::size_t i = 0; i < config_.gpud.workers; ++i) ws.push_back(worker_json(i));
        j["winning_post_worker"] = worker_json(config_.gpud.workers);
        const auto st = lock_.statistics();
        const auto ls = lock_.state();
        j["cuda_lock"] = {{"name", config_.gpud.lock_name},
                          {"held", ls.held},
                          {"holder_pid", ls.holder_pid},
                          {"waiting", ls.waiting},
                          {"acquisitions", st.acquisitions},
                          {"total_wait_ms", st.total_wait_ns / 1e6},
                          {"total_hold_ms", st.total_hold_ns / 1e6},
                          {"max_wait_ms", st.max_wait_ns / 1e6},
                          {"max_hold_ms", st.max_hold_ns / 1e6},
                          {"owner_death_recoveries", st.owner_death_recoveries}};
        auto& slots = j["slots"] = nlohmann::json::array();
        for (const auto& s : prover_.ring().snapshot()) {
            nlohmann::json e{{"slot", s.slot}, {"state", ipc::to_string(s.state)}, {"generation", s.generation}};
            if (s.state != ipc::slot_state::free) {
                e["job"] = s.job_id;
                e["partition"] = s.partition;
                e["holder"] = s.holder;
            }
            slots.push_back(e);
        }
        const auto c = prover_.ring().counters();
        j["ring"] = {{"name", config_.ring.name}, {"commits", c.commits}, {"releases", c.releases},
                     {"full_claims", c.full_claims}, {"reclaimed_writing", c.reclaimed_writing},
                     {"reclaimed_proving", c.reclaimed_proving}, {"discarded", c.discarded}};
        return j.dump();
    }

    bool cancelled(std::uint64_t job) const {
        std::lock_guard lock(cancel_mutex_);
        return cancelled_.count(job) != 0;
    }

    // |min_class|: the priority classes this worker takes (priority_class_of); the WinningPoSt worker takes class 2
    // and up only, so that a WinningPoSt finds a worker at once, prepares while the lock's holder runs and queues
    // ahead of every PoRep partition: it waits only for the kernels running when it arrives.
    void worker(unsigned index, std::int32_t min_class) {
        auto rng = groth16::system_rng();
        auto& state = workers_[index];
        // A lost device requests the shutdown too: no worker takes another slot.
        while (!daemon::shutdown_requested()) {
            auto claim = prover_.take_ready(100ms, min_class);
            if (!claim) continue;
            state.job = claim->job_id;
            state.partition = claim->partition;
            prove_one(*claim, index, rng);
            state.partition = -1;
            state.set_circuit({});
            state.phase = "idle";
        }
    }

    void prove_one(const ipc::proving_claim& claim, unsigned worker, groth16::rng_fn& rng) {
        auto& state = workers_[worker];
        const auto job = std::to_string(claim.job_id);
        const auto part = std::to_string(claim.partition);
        const auto w = std::to_string(worker), slot = std::to_string(claim.slot);
        // gpu= lets `cuzk timeline` keep each GPU's lock intervals apart when several gpud run.
        const auto gpu = std::to_string(config_.gpud.gpu);
        const auto picked = steady::now();
        tl::emit(tl::event::gpu_pickup, job, {{"partition", part}, {"worker", w}, {"slot", slot}, {"gpu", gpu}});
        if (device_lost_) return leave_for_next_gpud(claim, worker, "before prepare");
        if (stops_at_boundary(claim, "before prepare")) return;
        ipc::partition_proof_msg out;
        out.job_id = claim.job_id;
        out.partition = claim.partition;
        out.timings.gpu = static_cast<std::uint32_t>(config_.gpud.gpu);
        out.timings.worker = worker;
        // queue_us stays 0: the ring overwrites the READY time when the slot turns PROVING.
        auto step = proving_step::prepare;  // the one running when something throws
        // Held until the slot is free: the last reference to an evicted set frees it (the backend's copy, tens of
        // GiB of host memory), work that waits until the proof is out.
        std::shared_ptr<const groth16::parameters> params;
        std::shared_ptr<const r1cs::r1cs_matrices> matrices;
        try {
            state.phase = "prepare";
            if (claim.payload_format != daemon::witness_format)
                throw std::runtime_error(fmt::format("slot payload format {} is not a witness", claim.payload_format));
            const auto witness = daemon::read_witness(claim.payload);
            state.set_circuit(witness.circuit_spec);
            const auto got = params_.get(witness.circuit_spec);
            params = got.params;
            out.timings.params_load_us = got.load_us;
            if (!got.was_loaded)
                spdlog::info("job {} partition {}: parameters for {} ready after {} ms", job, part,
                             daemon::circuit_shape(witness.circuit_spec), got.load_us / 1000);
            matrices = got.matrices;
            if (witness.circuit_rows != matrices->circuit_rows)
                throw std::runtime_error(fmt::format("witness of {} has {} circuit rows, its R1CS matrices {}",
                                                     witness.circuit_spec, witness.circuit_rows,
                                                     matrices->circuit_rows));
            auto t = steady::now();
            auto work = backend_->prepare_compact({witness.inputs, witness.aux, matrices.get()}, *params);
            out.timings.prep_us = us_since(t);
            // No kernels on a device another worker found lost (they would fail, or worse, wait on it).
            if (device_lost_) return leave_for_next_gpud(claim, worker, "after prepare");
            // Before the lock: a cancel or a stop that came during prepare costs no GPU time.
            if (stops_at_boundary(claim, "after prepare")) return;

            step = proving_step::kernels;
            // A WinningPoSt runs beside the lock's holder where the backend keeps its kernels apart from the holder's
            // (the CUDA backend's side lane, for small sets): its proof is late by seconds, and the holder may be a
            // 32 GiB partition a second long ([gpud] winning_post_beside_lock). Everything else, and a WinningPoSt the
            // backend cannot keep apart, queues for the lock by its class.
            const bool beside = config_.gpud.winning_post_beside_lock &&
                                ipc::priority_class_of(claim.commit_seq) >= winning_post_class &&
                                backend_->can_run_beside_lock(*work);
            std::optional<ipc::cuda_lock_guard> guard;
            if (!beside) {
                state.phase = "lock_wait";
                t = steady::now();
                // The wait gives up for a cancel or a stop (the partition leaves at this boundary, below) and a lost
                // device. Queued by the partition's priority class.
                guard = lock_.acquire_unless(
                    [&] { return device_lost_.load() || daemon::shutdown_requested() || cancelled(claim.job_id); },
                    ipc::priority_class_of(claim.commit_seq));
                if (device_lost_) return leave_for_next_gpud(claim, worker, "before the kernels");  // |guard| frees it
                if (!guard) {
                    stops_at_boundary(claim, "while waiting for the CUDA lock");
                    return;
                }
                out.timings.lock_wait_us = us_since(t);
            }
            // One that came while this worker waited for the lock: the lock goes to the next waiter at once.
            if (stops_at_boundary(claim, "before the kernels")) return;
            tl::emit(tl::event::lock_wait, job,
                     {{"partition", part}, {"worker", w}, {"slot", slot}, {"gpu", gpu},
                      {"ms", std::to_string(out.timings.lock_wait_us / 1000)}});
            // GPU_START / GPU_END bracket exactly the work under the lock, or beside it (beside=lock).
            if (beside)
                tl::emit(tl::event::gpu_start, job,
                         {{"partition", part}, {"worker", w}, {"slot", slot}, {"gpu", gpu}, {"beside", "lock"}});
            else
                tl::emit(tl::event::gpu_start, job, {{"partition", part}, {"worker", w}, {"slot", slot}, {"gpu", gpu}});
            state.phase = beside ? "kernels_beside_lock" : "kernels";
            t = steady::now();
            if (beside)
                backend_->run_kernels_beside_lock(*work);
            else
                backend_->run_kernels(*work);
            out.timings.gpu_us = us_since(t);
            tl::emit(tl::event::gpu_end, job,
                     {{"partition", part}, {"worker", w}, {"slot", slot}, {"gpu", gpu},
                      {"ms", std::to_string(out.timings.gpu_us / 1000)}});
            if (guard) {
                const auto held = guard->release();
                if (held.lost)
                    spdlog::warn("worker {}: the CUDA lock had been taken from this process (judged dead)", worker);
            }

            // Kernels that returned ran on a working device: the proof is good even if the device was lost since.
            // A stopping gpud finishes the tail (CPU work, shorter than proving again); a cancelled job's does not.
            if (cancelled(claim.job_id)) {
                release_slot(claim, "a cancel");
                spdlog::info("job {} partition {}: cancelled during the kernels, slot {} freed without its tail", job,
                             part, slot);
                return;
            }
            step = proving_step::tail;
            state.phase = "tail";
            t = steady::now();
            const auto pi = backend_->finish(*work, rng);
            const auto bytes = groth16::proof_to_bytes(pi);
            std::memcpy(out.proof.data(), bytes.data(), out.proof.size());
            out.timings.tail_us = us_since(t);
            tl::emit(tl::event::tail_end, job,
                     {{"partition", part}, {"worker", w}, {"slot", slot}, {"gpu", gpu},
                      {"ms", std::to_string(out.timings.tail_us / 1000)}});
        } catch (const abandoned_error& e) {
            // gpud stopped while the partition's parameters were loading (params_store::abandon_loads): nothing
            // failed, the partition goes back READY for the next gpud.
            spdlog::info("job {} partition {}: {}", job, part, e.what());
            if (!stops_at_boundary(claim, "while its parameters were loading"))
                return fail(claim, worker, classify_failure(e, config_.gpud.gpu, worker, step));
            return;
        } catch (const std::exception& e) {
            // The lock guard is gone with the try block: the failure is handled without the CUDA lock.
            return fail(claim, worker, classify_failure(e, config_.gpud.gpu, worker, step));
        }
        // The proof is queued before the slot is freed: if this process dies in between, the slot is
        // reclaimed READY and proved again (a duplicate the assembler ignores), never lost.
        results_.push(out);
        ++state.proved;
        sent_before_release_.wait_for_flush();
        release_slot(claim, "its proof");
        spdlog::debug("job {} partition {} proved by worker {} in {} ms", job, part, worker,
                      us_since(picked) / 1000);
    }

    // A witness or parameter problem fails the job (not retryable); a device failure (device_error) sends the
    // partition round again, and when the backend then finds the device lost, gpud stops: see on_device_lost.
    // The slot is freed either way, after the failure was handed to ZeroMQ, as a proof is (so a gpud exiting
    // right after still tells assemblerd).
    void fail(const ipc::proving_claim& claim, unsigned worker, partition_failure failure) {
        const std::string lost = failure.retryable ? backend_->device_lost() : std::string();
        if (!lost.empty()) failure.message += fmt::format("; the device is lost ({}): gpud restarts", lost);
        spdlog::error("job {} partition {} (slot {}): {}{}", claim.job_id, claim.partition, claim.slot, failure.message,
                      failure.retryable ? " (retryable)" : "");
        results_.push(ipc::partition_failed_msg{claim.job_id, claim.partition, failure.retryable, failure.message});
        sent_before_release_.wait_for_flush();
        release_slot(claim, "its failure");
        if (!lost.empty()) on_device_lost(worker, lost);
    }

    // A step boundary (before prepare, after it, once the CUDA lock is held): a cancelled job's partition is
    // dropped there, its slot freed unproved, and a gpud asked to stop (SIGTERM) hands the partition back READY,
    // so the next gpud proves the witness as it is, within the stop's grace period and without a second owner.
    // True when the worker leaves the partition here.
    bool stops_at_boundary(const ipc::proving_claim& claim, std::string_view where) {
        if (cancelled(claim.job_id)) {
            release_slot(claim, "a cancel");
            spdlog::info("job {} partition {}: cancelled, slot {} freed unproved ({})", claim.job_id, claim.partition,
                         claim.slot, where);
            return true;
        }
        if (!daemon::shutdown_requested()) return false;
        const auto status = prover_.hand_back(claim);
        if (status == ipc::transition_status::ok)
            spdlog::info("job {} partition {}: gpud is stopping: slot {} handed back READY {} for the next gpud",
                         claim.job_id, claim.partition, claim.slot, where);
        else
            spdlog::warn("job {} partition {}: hand-back of ring slot {} refused: {}", claim.job_id, claim.partition,
                         claim.slot, ipc::to_string(status));
        return true;
    }

    // A refused release means the slot is ours no more (a reclaim_dead elsewhere judged this process dead):
    // its new holder owns its state, so nothing is left to undo; the log names the slot.
    void release_slot(const ipc::proving_claim& claim, std::string_view after) {
        const auto status = prover_.release(claim);
        if (status != ipc::transition_status::ok) {
            spdlog::warn("job {} partition {}: release of ring slot {} (generation {}) after {} refused: {}",
                         claim.job_id, claim.partition, claim.slot, claim.generation, after, ipc::to_string(status));
        }
    }

    // A lost CUDA context fails every later call of this process, so gpud stops taking slots and exits with
    // status 1 (a runtime failure): systemd's Restart=on-failure starts it again, with a new context. The
    // workers leave the partitions they hold PROVING (leave_for_next_gpud) rather than prove them on the
    // lost device; a worker already in the tail finishes it (its kernels ran on a working device).
    void on_device_lost(unsigned worker, const std::string& why) {
        if (device_lost_.exchange(true)) return;  // another worker saw the same loss first
        spdlog::error("GPU {}: the CUDA context is lost ({}; found by worker {}): gpud takes no more slots and exits "
                      "(status 1) so that systemd (Restart=on-failure) starts it with a new context",
                      config_.gpud.gpu, why, worker);
        daemon::request_shutdown();
    }

    // The slot stays PROVING under this process: once gpud has exited its pid is dead, and the next gpud (at
    // its start, or any other gpud on the ring within a second) reclaims the slot READY (reclaim_dead) and
    // proves the witness as it is, so nothing is reported and nothing is synthesized again.
    void leave_for_next_gpud(const ipc::proving_claim& claim, unsigned worker, std::string_view when) {
        spdlog::warn("job {} partition {} (slot {}): left PROVING by worker {} {}: the device is lost; the next gpud "
                     "reclaims it",
                     claim.job_id, claim.partition, claim.slot, worker, when);
    }

    void on_cancel(const ipc::cancel_msg& m) {
        {
            std::lock_guard lock(cancel_mutex_);
            cancelled_.insert(m.job_id);
        }
        const auto freed = prover_.discard_ready(m.job_id);
        spdlog::info("job {} cancelled: {} ready slots freed", m.job_id, freed);
    }

    int run() {
        // One gpud per GPU in a runtime directory: the lock and the socket are the GPU's (gpud-<gpu>), so the
        // gpuds of several GPUs share the ring, assemblerd and synthd, while a second one for a GPU is refused.
        const auto name = ipc::gpud_socket_name(config_.gpud.gpu);
        daemon::instance_lock lock(config_.runtime.dir, name);
        // A lock another running service uses too would serialize (and mix up) two services' kernels: refused.
        const auto service = daemon::service_name(config_);
        daemon::claim_for_service(fmt::format("CUDA lock '{}'", config_.gpud.lock_name), "[gpud] lock_name",
                                  lock_.service(), service, [&] { lock_.take_over(service); });
        // The witnesses live in the ring: a backend that copies them to a GPU page-locks it here, once.
        backend_->register_host_region(prover_.ring().mapping());
        zmq::context_t context(1);
        daemon::request_router router(context, config_.endpoint(name));
        auto results = daemon::connect_socket(context, zmq::socket_type::push, config_.endpoint(ipc::socket_names::results));
        // First in the outbox, so it leaves before any result of this process.
        results_.push(ipc::stage_hello_msg{ipc::stage::gpud, ::getpid(), static_cast<std::uint64_t>(tl::now_ms())});
        std::vector<std::thread> threads;
        for (unsigned i = 0; i < config_.gpud.workers; ++i)
            threads.emplace_back([this, i] { worker(i, std::numeric_limits<std::int32_t>::min()); });
        threads.emplace_back([this] { worker(config_.gpud.workers, winning_post_class); });
        daemon::notify_ready();
        daemon::service_pulse pulse;
        spdlog::info("gpud serving on {}: GPU {}, backend {}, {} workers and one for WinningPoSt, lock '{}', ring '{}'",
                     config_.endpoint(name),
                     config_.gpud.gpu, backend_->name(), config_.gpud.workers, config_.gpud.lock_name,
                     config_.ring.name);
        // After ready: a 32 GiB set takes minutes, and the loop answers STATUS_REQUEST meanwhile. A partition of
        // a set still loading waits for that load in the store.
        params_requests_.start_configured(daemon::gpud_preload_specs(config_));
        if (!config_.gpud.lock_per_gpu)
            spdlog::info("[gpud] lock_name is set: every gpud reading this configuration takes lock '{}', whatever its "
                         "GPU (leave it empty, or put {{gpu}} in it, for one lock per GPU)",
                         config_.gpud.lock_name);
        // Whatever ends the loop (signal or exception), the workers stop and are joined before the ring goes.
        // A load under way is abandoned (a published 32 GiB set takes minutes): its partition goes back READY.
        struct joiner {
            std::vector<std::thread>& threads;
            daemon::params_store& params;
            ~joiner() {
                daemon::request_shutdown();
                params.abandon_loads();
                for (auto& t : threads)
                    if (t.joinable()) t.join();
            }
        } join_workers{threads, params_};
        zmq::pollitem_t items[] = {{router.socket().handle(), 0, ZMQ_POLLIN, 0}, {nullptr, results_.fd(), ZMQ_POLLIN, 0}};
        auto last_reclaim = steady::now();
        while (!daemon::shutdown_requested()) {
            daemon::poll_once(items, 2, 20ms);
            while (auto req = router.receive()) {
                if (auto* cancel = std::get_if<ipc::cancel_msg>(&req->body)) on_cancel(*cancel);
                else if (std::holds_alternative<ipc::status_request_msg>(req->body))
                    router.reply(req->envelope, ipc::status_reply_msg{status_json()});
                else if (auto* params = std::get_if<ipc::params_request_msg>(&req->body))
                    params_requests_.take(std::move(req->envelope), *params, router);
                else
                    router.reply_error(req->envelope, ipc::error_code::bad_request, ipc::type_of(req->body),
                                       fmt::format("gpud does not take {} messages (CANCEL, STATUS_REQUEST, "
                                                   "PARAMS_REQUEST)",
                                                   ipc::to_string(ipc::type_of(req->body))));
            }
            params_requests_.send_done(router);
            const auto mark = sent_before_release_.mark();
            // A worker frees its slot once its proof is out; while messages stay queued it waits (up to the
            // gate's bound), so a full queue holds slots back, as a slow assembler should.
            if (results_.send_to(results) == 0) sent_before_release_.flushed(mark);
            // A prover that died elsewhere (another gpud on the ring) leaves PROVING slots: take them back.
            if (steady::now() - last_reclaim > 1s) {
                for (const auto& r : prover_.ring().reclaim_dead())
                    spdlog::warn("slot {} (job {} partition {}) reclaimed from dead pid {}", r.slot, r.job_id,
                                 r.partition, r.dead_holder);
                last_reclaim = steady::now();
            }
            pulse.tick();
        }
        daemon::notify_stopping();
        params_.abandon_loads();
        for (auto& t : threads) t.join();
        params_requests_.join_all();
        params_requests_.send_done(router);
        // Whatever the workers queued last goes out within the socket's linger, before the context closes.
        if (results_.send_to(results) != 0) {
            results_.drop_unsent("its slot is free already, so assemblerd dispatches the partition again after "
                                 "[assemblerd] partition_timeout_s");
        }
        if (device_lost_) {
            spdlog::error("gpud exits with status 1: the CUDA context of GPU {} is lost", config_.gpud.gpu);
            return 1;
        }
        return 0;
    }

private:
    // Lets a worker wait until the loop has handed its proof to ZeroMQ before the slot is freed.
    class flush_gate {
    public:
        void wait_for_flush() {
            std::unique_lock lock(mutex_);
            const auto target = requested_ + 1;
            requested_ = target;
            cv_.wait_for(lock, 2s, [&] { return done_ >= target || daemon::shutdown_requested(); });
        }
        // Read before the outbox is drained: every request counted here had pushed its proof already.
        std::uint64_t mark() {
            std::lock_guard lock(mutex_);
            return requested_;
        }
        void flushed(std::uint64_t mark) {
            {
                std::lock_guard lock(mutex_);
                done_ = std::max(done_, mark);
            }
            cv_.notify_all();
        }

    private:
        std::mutex mutex_;
        std::condition_variable cv_;
        std::uint64_t requested_ = 0, done_ = 0;
    };

    const daemon::config& config_;
    ipc::ring_prover prover_;
    ipc::cuda_lock lock_;
    std::unique_ptr<proving_backend> backend_;
    daemon::params_store params_;
    // After |params_| and |backend_|: its threads use both. A preloaded set goes to the device at once.
    // A set loaded as gpud stops is not uploaded (13 s for a 32 GiB set on an H200). Where WinningPoSt runs beside
    // the lock, the lane is warmed for a set it takes (the backend decides which), so the first one is not slower.
    params_requests params_requests_{params_, [this](const daemon::params_store::lookup& g) {
                                         if (daemon::shutdown_requested()) return;
                                         backend_->preload(*g.params, g.matrices.get());
                                         if (config_.gpud.winning_post_beside_lock && g.matrices)
                                             backend_->warm_side_lane(*g.params, *g.matrices);
                                     }};
    std::vector<worker_state> workers_;
    // The API's CRITICAL (WinningPoSt, 200), as a priority class (ipc::priority_class_of).
    static constexpr std::int32_t winning_post_class = ipc::winning_post_priority / 100;
    daemon::outbox results_;
    flush_gate sent_before_release_;
    mutable std::mutex cancel_mutex_;
    std::set<std::uint64_t> cancelled_;
    std::atomic<bool> device_lost_{false};  // set once; the exit status is 1 from then on
};

}  // namespace

int serve(const daemon::config& c) {
    // Read once, before anything is opened: a malformed value is a configuration error (exit 2).
    const auto faults = fault_plan_from_environment();
    gpu_service service(c, faults);
    return service.run();
}

}  // namespace cuzk::gpud
