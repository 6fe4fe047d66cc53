#include "assemblerd/job_completion.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <vector>

#include "common/daemon/timeline.hpp"
#include "ipc/clock.hpp"

namespace cuzk::assemblerd {

namespace tl = cuzk::timeline;
namespace jr = journal_records;
using ipc::job_state;

void job_completion::complete(job& j) {
    if (!config_.assemblerd.verify) return finish_done(j);
    j.verifying = true;
    verifier_.submit(j);
}

void job_completion::on_verified(const proof_verifier::outcome& o) {
    job* j = jobs_.live(o.job_id);  // cancelled (or expired) meanwhile: nothing to do
    if (!j || !j->verifying) return;
    j->verifying = false;
    if (!o.error.empty()) return fail(*j, fmt::format("verification could not run: {}", o.error));
    if (!o.invalid.empty())
        return fail(*j, fmt::format("partition proofs {} do not verify with {} (are gpud's parameters of the same "
                                    "setup as this verifying key?)",
                                    fmt::join(o.invalid, ", "), o.vk_file));
    finish_done(*j);
}

void job_completion::finish_done(job& j) {
    std::vector<std::byte> proof;
    for (const auto& p : j.partitions) proof.insert(proof.end(), p.proof->begin(), p.proof->end());
    const auto now = ipc::realtime_ms();
    try {
        spool_.write_result(j.id, proof);
        journal_.append(jr::encode(jr::finished{j.id, job_state::done, now, {}}));
    } catch (const std::exception& e) {
        // Verified, but not done until its result and DONE record are on disk: it stays running (clients keep
        // waiting, the status says why) and retry_writes finishes it when space returns.
        j.result_unwritten = true;
        return write_failed(j, fmt::format("result not written: {}", e.what()));
    }
    j.result_unwritten = false;
    jobs_.finish(j, job_state::done, "", now);
    metrics_.job_ended(j.kind, job_state::done, (now - std::min(now, j.created_ms)) / 1e3);
    tl::emit(tl::event::job_done, std::to_string(j.id),
             {{"partitions", std::to_string(j.partitions.size())}, {"ms", std::to_string(now - j.created_ms)}});
    // Where the time went, summed over the partitions: what an operator reads first when a WinningPoSt was late.
    const auto& m = j.measured;
    spdlog::info("job {} done ({}, priority {}): {} partition{}{} in {} ms (queue wait {} ms, synthesis {} ms, "
                 "CUDA lock wait {} ms, GPU {} ms)",
                 j.id, ipc::to_string(j.kind), j.priority, j.partitions.size(), j.partitions.size() == 1 ? "" : "s",
                 config_.assemblerd.verify ? ", verified" : "", now - j.created_ms,
                 m.first_dispatch_ms > j.created_ms ? m.first_dispatch_ms - j.created_ms : 0, m.synth_us / 1000,
                 m.lock_wait_us / 1000, m.gpu_us / 1000);
    waiting_.answer(j);
}

void job_completion::end(job& j, job_state state, std::string error) {
    const auto now = ipc::realtime_ms();
    jr::finished record{j.id, state, now, state == job_state::failed ? error : std::string()};
    jobs_.finish(j, state, std::move(error), now);
    try {
        journal_.append(jr::encode(record));
    } catch (const std::exception& e) {
        // Ended in memory; until the record is written a restart would take the job up again.
        j.unwritten_end = std::move(record);
        write_failed(j, fmt::format("{} record not journaled: {}", ipc::to_string(state), e.what()));
    }
    metrics_.job_ended(j.kind, state, (now - std::min(now, j.created_ms)) / 1e3);
    stages_.cancel(j.id, now);
}

void job_completion::fail(job& j, std::string error) {
    spdlog::error("job {} failed: {}", j.id, error);
    end(j, job_state::failed, std::move(error));
    waiting_.answer(j);
}

void job_completion::cancel(job& j) {
    end(j, job_state::cancelled, "cancelled by request");
    spdlog::info("job {} cancelled ({} of {} partitions were proved)", j.id, j.proved(), j.partitions.size());
    waiting_.answer(j);
}

void job_completion::write_failed(job& j, std::string what) {
    if (j.write_error.empty())
        spdlog::error("job {}: {}; retried each second, nothing of the job is lost while the daemon runs", j.id, what);
    j.write_error = std::move(what);
}

void job_completion::retry_writes() {
    for (auto& [id, j] : jobs_.all()) {
        if (j.write_error.empty()) continue;
        try {
            for (std::uint32_t p = 0; p < j.partitions.size(); ++p) {
                auto& part = j.partitions[p];
                if (!part.proof || part.journaled) continue;
                journal_.append(jr::encode(jr::partition_proved{id, p, *part.proof}));
                part.journaled = true;
            }
            if (j.unwritten_end) {
                journal_.append(jr::encode(*j.unwritten_end));
                j.unwritten_end.reset();
            }
        } catch (const std::exception& e) {
            write_failed(j, fmt::format("journal still refuses: {}", e.what()));
            continue;
        }
        const bool complete_now = !j.terminal() && !j.verifying && j.proved() == j.partitions.size();
        const bool result_pending = j.result_unwritten;
        if (complete_now) {
            if (result_pending) finish_done(j);
            else complete(j);  // its last proofs are journaled at last
        }
        if (!j.result_unwritten && !j.unwritten_end && j.proofs_journaled()) {
            spdlog::info("job {}: what the disk refused is written now", id);
            j.write_error.clear();
        }
    }
}

}  // namespace cuzk::assemblerd
