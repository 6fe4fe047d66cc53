#include "synthd/job_intake.hpp"

#include <utility>

namespace cuzk::synthd {

void job_intake::push(pending_job p) {
    {
        std::lock_guard lock(mutex_);
        const auto priority = p.job.priority;
        queue_.push(priority, std::move(p));
    }
    cv_.notify_all();  // two readers with different floors: the one this JOB is for must wake
}

std::optional<pending_job> job_intake::pop(std::chrono::milliseconds wait, std::int32_t min_priority) {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, wait, [&] { return closed_ || queue_.first_at_least(min_priority); }) || closed_)
        return std::nullopt;
    return queue_.pop();
}

std::size_t job_intake::drop_job(std::uint64_t job_id) {
    std::lock_guard lock(mutex_);
    return queue_.erase_if([&](const pending_job& p) { return p.job.job_id == job_id; });
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
