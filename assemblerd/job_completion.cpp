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
    if (!o.invalid.empty()) return fail(*j, fmt::format("partition proofs {} do not verify", fmt::join(o.invalid, ", ")));
    finish_done(*j);
}

void job_completion::finish_done(job& j) {
    std::vector<std::byte> proof;
    for (const auto& p : j.partitions) proof.insert(proof.end(), p.proof->begin(), p.proof->end());
    spool_.write_result(j.id, proof);
    const auto now = ipc::realtime_ms();
    journal_.append(jr::encode(jr::finished{j.id, job_state::done, now, {}}));
    jobs_.finish(j, job_state::done, "", now);
    metrics_.job_ended(j.kind, job_state::done, (now - std::min(now, j.created_ms)) / 1e3);
    tl::emit(tl::event::job_done, std::to_string(j.id),
             {{"partitions", std::to_string(j.partitions.size())}, {"ms", std::to_string(now - j.created_ms)}});
    spdlog::info("job {} done: {} partitions{} in {} ms", j.id, j.partitions.size(),
                 config_.assemblerd.verify ? ", verified" : "", now - j.created_ms);
    waiting_.answer(j);
}

void job_completion::fail(job& j, std::string error) {
    const auto now = ipc::realtime_ms();
    journal_.append(jr::encode(jr::finished{j.id, job_state::failed, now, error}));
    spdlog::error("job {} failed: {}", j.id, error);
    jobs_.finish(j, job_state::failed, std::move(error), now);
    metrics_.job_ended(j.kind, job_state::failed, (now - std::min(now, j.created_ms)) / 1e3);
    stages_.cancel(j.id, now);
    waiting_.answer(j);
}

void job_completion::cancel(job& j) {
    const auto now = ipc::realtime_ms();
    journal_.append(jr::encode(jr::finished{j.id, job_state::cancelled, now, {}}));
    jobs_.finish(j, job_state::cancelled, "cancelled by request", now);
    metrics_.job_ended(j.kind, job_state::cancelled, (now - std::min(now, j.created_ms)) / 1e3);
    stages_.cancel(j.id, now);
    spdlog::info("job {} cancelled ({} of {} partitions were proved)", j.id, j.proved(), j.partitions.size());
    waiting_.answer(j);
}

}  // namespace cuzk::assemblerd
