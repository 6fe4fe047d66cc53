#include "synthd/work_queue.hpp"

namespace cuzk::synthd {

bool work_queue::push(work_item item) {
    {
        std::lock_guard lock(mutex_);
        if (!known_.emplace(item.job_id, item.partition).second) return false;
        queue_.emplace(key{-static_cast<std::int64_t>(item.priority), arrivals_++}, std::move(item));
    }
    cv_.notify_one();
    return true;
}

std::optional<work_item> work_queue::pop(std::chrono::milliseconds wait, std::int32_t min_priority) {
    std::unique_lock lock(mutex_);
    const auto first_qualifies = [&] {
        return !queue_.empty() && -std::get<0>(queue_.begin()->first) >= std::int64_t{min_priority};
    };
    if (!cv_.wait_for(lock, wait, [&] { return closed_ || first_qualifies(); }) || closed_) return std::nullopt;
    auto node = queue_.extract(queue_.begin());
    ++in_progress_;
    return std::move(node.mapped());
}

void work_queue::done(std::uint64_t job_id, std::uint32_t partition) {
    std::lock_guard lock(mutex_);
    known_.erase({job_id, partition});
    --in_progress_;
}

std::size_t work_queue::drop_job(std::uint64_t job_id) {
    std::lock_guard lock(mutex_);
    std::size_t dropped = 0;
    for (auto it = queue_.begin(); it != queue_.end();) {
        if (it->second.job_id == job_id) {
            known_.erase({job_id, it->second.partition});
            it = queue_.erase(it);
            ++dropped;
        } else {
            ++it;
        }
    }
    return dropped;
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
