#include "synthd/job_intake.hpp"

#include <utility>

namespace cuzk::synthd {

void job_intake::push(pending_job p) {
    {
        std::lock_guard lock(mutex_);
        const key k{-static_cast<std::int64_t>(p.job.priority), arrivals_++};
        queue_.emplace(k, std::move(p));
    }
    cv_.notify_all();  // two readers with different floors: the one this JOB is for must wake
}

std::optional<pending_job> job_intake::pop(std::chrono::milliseconds wait, std::int32_t min_priority) {
    std::unique_lock lock(mutex_);
    const auto first_qualifies = [&] {
        return !queue_.empty() && -std::get<0>(queue_.begin()->first) >= std::int64_t{min_priority};
    };
    if (!cv_.wait_for(lock, wait, [&] { return closed_ || first_qualifies(); }) || closed_) return std::nullopt;
    auto node = queue_.extract(queue_.begin());
    return std::move(node.mapped());
}

std::size_t job_intake::drop_job(std::uint64_t job_id) {
    std::lock_guard lock(mutex_);
    return std::erase_if(queue_, [&](const auto& entry) { return entry.second.job.job_id == job_id; });
}

void job_intake::close() {
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
    }
    cv_.notify_all();
}

std::size_t job_intake::waiting() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
}

}  // namespace cuzk::synthd
