// The service's Prometheus metrics, kept by assemblerd (every partition's timings and every job's end pass
// through it) and rendered for /metrics and the API's GetMetrics. Counters and histograms are updated by the
// loop as events arrive; gauges (queues, ring slots, synthd's memory, resident parameters, GPU efficiency, each
// GPU's memory and gpud's backend counters) are refreshed from the daemons' status at each render, so a scrape
// shows the state of that moment.
// The list of metrics, with units, is in README.md ("Metrics").
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "common/metrics/busy_window.hpp"
#include "common/metrics/metric_registry.hpp"
#include "ipc/messages.hpp"

namespace cuzk::assemblerd {

class service_metrics {
public:
    service_metrics();

    void job_ended(ipc::proof_kind kind, ipc::job_state state, double seconds);
    // The partition histograms are labelled by the job's proof kind, so that a WinningPoSt's wait for the CUDA
    // lock behind PoRep partitions can be watched (and alerted on) apart from theirs.
    void partition_synthesized(ipc::proof_kind kind, std::uint64_t synth_us);
    // |received_ms|: when the proof arrived (the GPU's busy interval ended tail_us before it).
    void partition_proved(ipc::proof_kind kind, const ipc::partition_timings& t, std::uint64_t received_ms);
    void stage_started(ipc::stage s);

    std::uint64_t completed(ipc::proof_kind kind) const;
    std::uint64_t failed(ipc::proof_kind kind) const;
    std::uint64_t uptime_s() const;

    // |status|: collect_service_status()'s JSON. Thread-safe.
    std::string render(const nlohmann::json& status);

private:
    std::uint64_t started_ms_;
    metrics::registry registry_;
    metrics::counter_family& completed_;
    metrics::counter_family& failed_;
    metrics::counter_family& cancelled_;
    metrics::histogram_family& proof_seconds_;
    metrics::histogram_family& synthesis_seconds_;
    metrics::histogram_family& gpud_seconds_;
    metrics::histogram_family& lock_wait_seconds_;
    metrics::histogram_family& lock_hold_seconds_;
    metrics::counter_family& stage_starts_;
    metrics::gauge_family& gpu_efficiency_;
    metrics::gauge_family& queue_depth_;
    metrics::gauge_family& ring_slots_;
    metrics::gauge_family& synthd_memory_;
    metrics::gauge_family& synthd_budget_;
    metrics::gauge_family& params_sets_;
    metrics::gauge_family& params_bytes_;
    metrics::gauge_family& uptime_;
    metrics::gauge_family& gpu_memory_;
    metrics::gauge_family& backend_counters_;
    metrics::busy_window busy_;
};

}  // namespace cuzk::assemblerd
