#include "synthd/work_queue.hpp"

namespace cuzk::synthd {

bool work_queue::push(work_item item) {
    {
        std::lock_guard lock(mutex_);
        if (!known_.emplace(item.job_id, item.partition).second) return false;
        const auto priority = item.priority;
        queue_.push(priority, std::move(item));
    }
    cv_.notify_one();
    return true;
}

std::optional<work_item> work_queue::pop(std::chrono::milliseconds wait, std::int32_t min_priority) {
    std::unique_lock lock(mutex_);
    if (!cv_.wait_for(lock, wait, [&] { return closed_ || queue_.first_at_least(min_priority); }) || closed_)
        return std::nullopt;
    ++in_progress_;
    return queue_.pop();
}

void work_queue::done(std::uint64_t job_id, std::uint32_t partition) {
    std::lock_guard lock(mutex_);
    known_.erase({job_id, partition});
    --in_progress_;
}

std::size_t work_queue::drop_job(std::uint64_t job_id) {
    std::lock_guard lock(mutex_);
    return queue_.erase_if([&](const work_item& w) {
        if (w.job_id != job_id) return false;
        known_.erase({job_id, w.partition});
        return true;
    });
}

void work_queue::close() {
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
    }
    cv_.notify_all();
}

std::size_t work_queue::queued() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
}

std::size_t work_queue::in_progress() const {
    std::lock_guard lock(mutex_);
    return in_progress_;
}

}  // namespace cuzk::synthd
