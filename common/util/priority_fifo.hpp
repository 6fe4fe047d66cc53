// Items in the order the stages serve them: highest priority first, then in arrival order (synthd's JOB intake
// and work queue, assemblerd's input checks and proof verification). Not thread-safe: each owner guards it
// with its own lock, beside whatever else that lock covers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <utility>

namespace cuzk {

template <class T>
class priority_fifo {
public:
    static constexpr std::int32_t any_priority = std::numeric_limits<std::int32_t>::min();

    void push(std::int32_t priority, T item) { items_.emplace(key{-std::int64_t{priority}, arrivals_++}, std::move(item)); }
    bool empty() const { return items_.empty(); }
    std::size_t size() const { return items_.size(); }
    // Whether there is a first in line and its priority is at least |min_priority|.
    bool first_at_least(std::int32_t min_priority) const {
        return !items_.empty() && -items_.begin()->first.first >= std::int64_t{min_priority};
    }
    // The first in line, taken out; the fifo must not be empty.
    T pop() {
        auto node = items_.extract(items_.begin());
        return std::move(node.mapped());
    }
    // Removes the items |drop| says true of (called once per item, in order); returns how many.
    template <class Pred>
    std::size_t erase_if(Pred drop) {
        return std::erase_if(items_, [&](const auto& entry) { return drop(entry.second); });
    }

private:
    using key = std::pair<std::int64_t, std::uint64_t>;  // (-priority, arrival)
    std::map<key, T> items_;
    std::uint64_t arrivals_ = 0;
};

}  // namespace cuzk
