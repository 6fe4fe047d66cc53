#include "assemblerd/stage_results.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/daemon/timeline.hpp"
#include "ipc/clock.hpp"

namespace cuzk::assemblerd {

namespace tl = cuzk::timeline;

void stage_results::on_result(const ipc::message& m) {
    if (auto* r = std::get_if<ipc::slot_ready_msg>(&m)) {
        job* j = jobs_.live(r->job_id);
        if (!j || r->partition >= j->partitions.size()) return;
        auto& p = j->partitions[r->partition];
        if (p.state != partition_state::proved) {
            p.state = partition_state::synthesized;
            p.since_ms = ipc::realtime_ms();
            j->measured.synth_us += r->synth_us;
            metrics_.partition_synthesized(j->kind, r->synth_us);
        }
    } else if (auto* r = std::get_if<ipc::partition_proof_msg>(&m)) {
        on_partition_proof(*r);
    } else if (auto* r = std::get_if<ipc::partition_failed_msg>(&m)) {
        on_partition_failed(*r);
    } else if (auto* h = std::get_if<ipc::stage_hello_msg>(&m)) {
        metrics_.stage_started(h->from);
        if (h->from == ipc::stage::synthd) return dispatcher_.on_synthd_started(h->pid, h->started_ms);
        // gpud's work lives in the ring, which any gpud reclaims from a dead one: nothing to dispatch again.
        spdlog::info("gpud (pid {}) started", h->pid);
        stages_.find_gpuds();
    } else {
        spdlog::warn("unexpected {} on the results socket dropped", ipc::to_string(ipc::type_of(m)));
    }
}

void stage_results::on_partition_proof(const ipc::partition_proof_msg& r) {
    job* j = jobs_.live(r.job_id);
    if (!j || r.partition >= j->partitions.size()) return;
    auto& p = j->partitions[r.partition];
    if (p.state == partition_state::proved) {
        ++duplicates_;
        spdlog::debug("job {} partition {}: duplicate proof ignored", j->id, r.partition);
        return;
    }
    p.proof = r.proof;
    p.state = partition_state::proved;
    j->measured.gpu_us += r.timings.gpu_us;
    j->measured.lock_wait_us += r.timings.lock_wait_us;
    j->measured.params_load_us += r.timings.params_load_us;
    metrics_.partition_proved(j->kind, r.timings, ipc::realtime_ms());
    try {
        journal_.append(journal_records::encode(journal_records::partition_proved{j->id, r.partition, r.proof}));
    } catch (const std::exception& e) {
        // A full disk: the proof stays in memory and its record is written when space returns (the job is
        // completed only then, so that a replay finds every proof its DONE stands on).
        p.journaled = false;
        completion_.write_failed(*j, fmt::format("PROOF record of partition {} not journaled: {}", r.partition, e.what()));
    }
    tl::emit(tl::event::partition_done, std::to_string(j->id),
             {{"partition", std::to_string(r.partition)}, {"worker", std::to_string(r.timings.worker)},
              {"ms", std::to_string(r.timings.gpu_us / 1000)}});
    if (j->proved() == j->partitions.size() && j->proofs_journaled()) completion_.complete(*j);
}

// Not retryable: the input is bad, the job fails. Retryable (a stage's problem: a GPU that failed, a slot
// taken away): dispatched again, until the partition has failed max_partition_attempts times; then the job
// fails with the last error, so a GPU that fails a partition every time (or one too large for its memory)
// ends the job instead of sending the partition round forever. The count is partition_progress's (in
// memory: an assemblerd restart starts it again, see job.hpp).
void stage_results::on_partition_failed(const ipc::partition_failed_msg& r) {
    job* j = jobs_.live(r.job_id);
    if (!j || r.partition >= j->partitions.size()) return;
    auto& p = j->partitions[r.partition];
    if (p.state == partition_state::proved) return;
    if (!r.retryable) return completion_.fail(*j, fmt::format("partition {}: {}", r.partition, r.error));
    ++p.failed_attempts;
    if (p.failed_attempts >= max_attempts_)
        return completion_.fail(
            *j, fmt::format("partition {} failed {} times; last error: {}", r.partition, p.failed_attempts, r.error));
    spdlog::warn("job {} partition {}: {} (failed attempt {} of {}: dispatched again)", j->id, r.partition, r.error,
                 p.failed_attempts, max_attempts_);
    p.state = partition_state::pending;
}

}  // namespace cuzk::assemblerd
