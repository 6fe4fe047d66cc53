#include "assemblerd/service_metrics.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>

#include "daemon/service_status.hpp"
#include "ipc/clock.hpp"

namespace cuzk::assemblerd {

namespace {

// A 32 GiB PoRep takes minutes; a 2 KiB one and the test circuits seconds.
const std::vector<double> job_bounds{1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600};
const std::vector<double> partition_bounds{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
const std::vector<double> lock_bounds{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
constexpr std::int64_t efficiency_window_ms = 5 * 60 * 1000;

std::string label(ipc::proof_kind kind) {
    auto s = std::string(ipc::to_string(kind));  // "porep-c2" -> "porep_c2", as Curio's cuzk labels kinds
    for (auto& c : s)
        if (c == '-') c = '_';
    return s;
}

std::string priority_label(std::int64_t p) {
    if (p >= 200) return "critical";
    if (p >= 100) return "high";
    if (p >= 0) return "normal";
    return "low";
}

}  // namespace

service_metrics::service_metrics()
    : started_ms_(ipc::realtime_ms()),
      completed_(registry_.counter("cuzk_proofs_completed_total", "Proofs completed (verified when [assemblerd] verify)",
                                   {"proof_kind"})),
      failed_(registry_.counter("cuzk_proofs_failed_total", "Proofs failed", {"proof_kind"})),
      cancelled_(registry_.counter("cuzk_proofs_cancelled_total", "Proofs cancelled by a client", {"proof_kind"})),
      proof_seconds_(registry_.histogram("cuzk_proof_duration_seconds",
                                         "Submission to completion of proofs completed", {"proof_kind"}, job_bounds)),
      synthesis_seconds_(registry_.histogram("cuzk_partition_synthesis_seconds",
                                             "Synthesis of one partition's witness (synthd)", {"proof_kind"},
                                             partition_bounds)),
      gpud_seconds_(registry_.histogram("cuzk_partition_gpud_seconds",
                                        "One partition in gpud: preparation, CUDA lock wait, kernels and tail",
                                        {"proof_kind"}, partition_bounds)),
      lock_wait_seconds_(registry_.histogram("cuzk_cuda_lock_wait_seconds", "Waiting for the GPU's CUDA lock, per partition",
                                             {"proof_kind"}, lock_bounds)),
      lock_hold_seconds_(registry_.histogram("cuzk_cuda_lock_hold_seconds",
                                             "Holding the GPU's CUDA lock (the kernels), per partition", {"proof_kind"},
                                             lock_bounds)),
      stage_starts_(registry_.counter("cuzk_stage_starts_total",
                                      "Stage processes started, as announced to assemblerd; more than one per running "
                                      "instance are restarts",
                                      {"stage"})),
      gpu_efficiency_(registry_.gauge("cuzk_gpu_efficiency_ratio",
                                      "Fraction of the last 5 minutes the GPU spent under its CUDA lock", {"gpu"})),
      queue_depth_(registry_.gauge("cuzk_queue_depth", "Jobs not ended, by kind, priority and state",
                                   {"proof_kind", "priority", "state"})),
      ring_slots_(registry_.gauge("cuzk_ring_slots", "Ring slots by state", {"state"})),
      synthd_memory_(registry_.gauge("cuzk_synthd_memory_held_bytes",
                                     "Synthesized witnesses synthd holds in memory while the ring is full")),
      synthd_budget_(registry_.gauge("cuzk_synthd_memory_budget_bytes", "synthd's memory budget for held witnesses")),
      params_sets_(registry_.gauge("cuzk_params_resident", "Parameter sets loaded, by GPU", {"gpu"})),
      params_bytes_(registry_.gauge("cuzk_params_resident_bytes", "Size of the parameter sets loaded",
                                    {"gpu", "circuit"})),
      uptime_(registry_.gauge("cuzk_uptime_seconds", "Seconds since assemblerd started")),
      gpu_memory_(registry_.gauge("cuzk_gpu_memory_bytes", "Device memory of each gpud's GPU, free and total",
                                  {"gpu", "state"})),
      backend_counters_(registry_.gauge("cuzk_gpu_backend_counter",
                                        "gpud's proving-backend counters and states (cuzk status backend_counters)",
                                        {"gpu", "counter"})),
      busy_(efficiency_window_ms) {}

void service_metrics::job_ended(ipc::proof_kind kind, ipc::job_state state, double seconds) {
    const auto l = label(kind);
    if (state == ipc::job_state::done) {
        completed_.add({l});
        proof_seconds_.observe({l}, seconds);
    } else if (state == ipc::job_state::failed) {
        failed_.add({l});
    } else if (state == ipc::job_state::cancelled) {
        cancelled_.add({l});
    }
}

void service_metrics::partition_synthesized(ipc::proof_kind kind, std::uint64_t synth_us) {
    synthesis_seconds_.observe({label(kind)}, synth_us / 1e6);
}

void service_metrics::partition_proved(ipc::proof_kind kind, const ipc::partition_timings& t,
                                       std::uint64_t received_ms) {
    const metrics::label_values l{label(kind)};
    gpud_seconds_.observe(l, (t.prep_us + t.lock_wait_us + t.gpu_us + t.tail_us) / 1e6);
    lock_wait_seconds_.observe(l, t.lock_wait_us / 1e6);
    lock_hold_seconds_.observe(l, t.gpu_us / 1e6);
    const auto end = static_cast<std::int64_t>(received_ms) - static_cast<std::int64_t>(t.tail_us / 1000);
    busy_.record(static_cast<int>(t.gpu), end - static_cast<std::int64_t>(t.gpu_us / 1000), end);
}

void service_metrics::stage_started(ipc::stage s) { stage_starts_.add({std::string(ipc::to_string(s))}); }

std::uint64_t service_metrics::completed(ipc::proof_kind kind) const {
    return static_cast<std::uint64_t>(completed_.value({label(kind)}));
}
std::uint64_t service_metrics::failed(ipc::proof_kind kind) const {
    return static_cast<std::uint64_t>(failed_.value({label(kind)}));
}
std::uint64_t service_metrics::uptime_s() const { return (ipc::realtime_ms() - started_ms_) / 1000; }

std::string service_metrics::render(const nlohmann::json& status) {
    const auto now = static_cast<std::int64_t>(ipc::realtime_ms());
    uptime_.set({}, static_cast<double>(uptime_s()));
    std::vector<std::pair<metrics::label_values, double>> efficiency;
    for (const int gpu : busy_.gpus()) efficiency.push_back({{std::to_string(gpu)}, busy_.busy_fraction(gpu, now)});
    gpu_efficiency_.replace(efficiency);

    std::map<metrics::label_values, double> queues;
    if (const auto& a = status["assemblerd"]; a.is_object())
        for (const auto& j : a.value("jobs", nlohmann::json::array())) {
            const auto state = daemon::status_value<std::string>(j, "state", "");
            if (state != "queued" && state != "running") continue;
            auto kind = daemon::status_value<std::string>(j, "kind", "unknown");
            for (auto& c : kind)
                if (c == '-') c = '_';
            queues[{kind, priority_label(daemon::status_value<std::int64_t>(j, "priority", 0)), state}] += 1;
        }
    queue_depth_.replace({queues.begin(), queues.end()});

    if (const auto& s = status["synthd"]; s.is_object()) {
        synthd_memory_.set({}, daemon::status_value<double>(s, "memory_held_bytes", 0));
        synthd_budget_.set({}, daemon::status_value<double>(s, "memory_budget_bytes", 0));
    } else {
        synthd_memory_.reset();
        synthd_budget_.reset();
    }
    // Every gpud sees the one ring; the first that answers tells its slots.
    std::map<metrics::label_values, double> slots;
    std::vector<std::pair<metrics::label_values, double>> sets, bytes, memory, counters;
    bool ring_seen = false;
    for (const auto& g : status["gpuds"]) {
        const auto gpu = std::to_string(daemon::status_value<int>(g, "gpu", 0));
        if (!ring_seen) {
            for (const auto& s : g.value("slots", nlohmann::json::array())) slots[{daemon::status_value<std::string>(s, "state", "")}] += 1;
            ring_seen = true;
        }
        const auto params = g.value("params", nlohmann::json::array());
        sets.push_back({{gpu}, static_cast<double>(params.size())});
        for (const auto& p : params)
            bytes.push_back({{gpu, daemon::status_value<std::string>(p, "circuit", "")}, daemon::status_value<double>(p, "bytes", 0)});
        // The CPU backend has no device (null): no memory series for it.
        if (const auto d = g.find("device"); d != g.end() && d->is_object()) {
            memory.push_back({{gpu, "free"}, daemon::status_value<double>(*d, "free_bytes", 0)});
            memory.push_back({{gpu, "total"}, daemon::status_value<double>(*d, "total_bytes", 0)});
        }
        // What an operator alerts on (side_lane_off: WinningPoSts wait for the CUDA lock again;
        // out_of_memory_replans, pin_refused_ranges) beside what explains the rates (pinned and pooled bytes).
        if (const auto c = g.find("backend_counters"); c != g.end() && c->is_object())
            for (const auto& [name, value] : c->items())
                if (value.is_number()) counters.push_back({{gpu, name}, value.get<double>()});
    }
    ring_slots_.replace({slots.begin(), slots.end()});
    params_sets_.replace(sets);
    params_bytes_.replace(bytes);
    gpu_memory_.replace(memory);
    backend_counters_.replace(counters);
    return registry_.render();
}

}  // namespace cuzk::assemblerd
