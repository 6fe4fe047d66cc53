#include "assemblerd/job_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "ipc/clock.hpp"

namespace cuzk::assemblerd {

namespace jr = journal_records;

void job_table::apply(const jr::record& r, const input_loader& load) {
    if (auto* n = std::get_if<jr::next_job_id>(&r)) {
        next_id_ = std::max(next_id_, n->id);
        return;
    }
    if (auto* s = std::get_if<jr::submitted>(&r)) {
        job j;
        j.id = s->job;
        j.priority = s->priority;
        j.kind = s->kind;
        j.partitions.resize(s->partitions);
        j.created_ms = s->created_ms;
        j.request_id = s->request_id;
        j.request_digest = s->request_digest;
        j.owner_uid = s->owner_uid;
        j.input = s->input;
        try {
            load(j);
        } catch (const std::exception& e) {
            // The spool lost the input (deleted by hand?): the job cannot go on, the journal still can.
            finish(j, ipc::job_state::failed, fmt::format("job input lost from the spool: {}", e.what()), ipc::realtime_ms());
        }
        add(std::move(j));
        return;
    }
    const auto id = std::visit([](const auto& rec) -> std::uint64_t {
        if constexpr (requires { rec.job; }) return rec.job;
        else return 0;
    }, r);
    job* j = find(id);
    if (!j) throw std::runtime_error("names a job without a SUBMIT record");
    if (auto* p = std::get_if<jr::partition_proved>(&r)) {
        if (p->partition >= j->partitions.size()) throw std::runtime_error("partition or proof size out of range");
        auto& part = j->partitions[p->partition];
        part.proof = p->proof;
        part.state = partition_state::proved;
    } else if (auto* f = std::get_if<jr::finished>(&r)) {
        finish(*j, f->state, f->error, f->at_ms);
    } else if (auto* f = std::get_if<jr::fetched>(&r)) {
        mark_fetched(*j, f->at_ms);
    } else if (std::holds_alternative<jr::expired>(r)) {
        forget(id);
    }
}

std::vector<jr::record> job_table::live_records() const {
    std::vector<jr::record> out{jr::next_job_id{next_id_}};
    for (const auto& [id, j] : jobs_) {
        out.emplace_back(jr::submitted{id, j.priority, j.kind, j.partitions.size(), j.created_ms, j.request_id, j.input,
                                         j.request_digest, j.owner_uid});
        for (std::uint32_t p = 0; p < j.partitions.size(); ++p)
            if (j.partitions[p].proof) out.emplace_back(jr::partition_proved{id, p, *j.partitions[p].proof});
        if (j.terminal()) out.emplace_back(jr::finished{id, j.state, j.finished_ms, j.state == ipc::job_state::failed ? j.error : ""});
        if (j.fetched) out.emplace_back(jr::fetched{id, j.expires_ms - fetched_grace_ms});
    }
    return out;
}

job& job_table::add(job j) {
    const auto id = j.id;
    if (!j.request_id.empty()) by_request_[{j.request_id, j.request_digest}] = id;
    id_taken(id);
    seq_of_[id] = seq_++;
    return jobs_[id] = std::move(j);
}

job* job_table::find(std::uint64_t id) {
    auto it = jobs_.find(id);
    return it == jobs_.end() ? nullptr : &it->second;
}

job* job_table::live(std::uint64_t id) {
    job* j = find(id);
    return j && !j->terminal() ? j : nullptr;
}

std::optional<std::uint64_t> job_table::by_request(const std::string& request_id, const std::string& digest) const {
    auto it = by_request_.find({request_id, digest});
    if (it == by_request_.end()) return std::nullopt;
    return it->second;
}

std::uint32_t job_table::queue_position(const job& j) const {
    std::uint32_t ahead = 0;
    for (const auto& [id, other] : jobs_) {
        if (id == j.id || other.terminal()) continue;
        if (other.priority > j.priority || (other.priority == j.priority && seq_of_.at(id) < seq_of_.at(j.id))) ++ahead;
    }
    return ahead;
}

std::size_t job_table::pending() const {
    return static_cast<std::size_t>(
        std::count_if(jobs_.begin(), jobs_.end(), [](const auto& e) { return !e.second.terminal(); }));
}

void job_table::finish(job& j, ipc::job_state state, std::string error, std::uint64_t at_ms) {
    j.state = state;
    j.error = std::move(error);
    j.finished_ms = at_ms;
    j.expires_ms = at_ms + ttl_ms_;
}

void job_table::mark_fetched(job& j, std::uint64_t at_ms) {
    j.fetched = true;
    j.expires_ms = std::min(j.expires_ms, at_ms + fetched_grace_ms);
}

std::vector<std::uint64_t> job_table::expired(std::uint64_t now_ms) const {
    std::vector<std::uint64_t> out;
    for (const auto& [id, j] : jobs_)
        if (j.terminal() && j.expires_ms <= now_ms) out.push_back(id);
    return out;
}

void job_table::forget(std::uint64_t id) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;
    if (!it->second.request_id.empty()) {
        auto r = by_request_.find({it->second.request_id, it->second.request_digest});
        if (r != by_request_.end() && r->second == id) by_request_.erase(r);
    }
    seq_of_.erase(id);
    jobs_.erase(it);
}

}  // namespace cuzk::assemblerd
