#include "assemblerd/input_checker.hpp"

#include <exception>
#include <limits>
#include <utility>

#include "common/util/errors.hpp"

namespace cuzk::assemblerd {

input_checker::input_checker(spool& s, bool check_circuit, std::function<void(const job&)> before_check)
    : spool_(s), check_circuit_(check_circuit), before_check_(std::move(before_check)) {
    for (unsigned t = 0; t < threads; ++t)
        threads_.emplace_back([this] { loop(std::numeric_limits<std::int32_t>::min()); });
    threads_.emplace_back([this] { loop(urgent_priority); });
}

input_checker::~input_checker() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
}

void input_checker::submit(job j, ipc::c1_source source, std::string name, std::vector<std::byte> input) {
    {
        std::lock_guard lock(mutex_);
        const std::tuple<std::int64_t, std::uint64_t> key{-std::int64_t{j.priority}, arrivals_++};
        tasks_.emplace(key, task{std::move(j), source, std::move(name), std::move(input)});
    }
    cv_.notify_all();  // the urgent thread must wake for a WinningPoSt, whichever others wait
}

std::vector<input_checker::outcome> input_checker::take() {
    std::lock_guard lock(mutex_);
    std::vector<outcome> out;
    out.swap(done_);
    return out;
}

std::size_t input_checker::busy() const {
    std::lock_guard lock(mutex_);
    return tasks_.size() + running_;
}

void input_checker::loop(std::int32_t min_priority) {
    std::unique_lock lock(mutex_);
    const auto first_qualifies = [&] {
        return !tasks_.empty() && -std::get<0>(tasks_.begin()->first) >= std::int64_t{min_priority};
    };
    while (true) {
        cv_.wait(lock, [&] { return stop_ || first_qualifies(); });
        if (stop_) return;  // unanswered submissions: never journaled, their clients retry
        task t = std::move(tasks_.begin()->second);
        tasks_.erase(tasks_.begin());
        ++running_;
        lock.unlock();
        outcome o;
        if (before_check_) before_check_(t.j);
        try {
            t.j.input = spool_.take_input(t.j.id, t.source, t.name, t.input);  // throws input_error naming it
            std::vector<std::byte>().swap(t.input);
            // A C1 is checked here (parse, consistency, registered proof): a bad one is refused now, its error
            // naming the client's file and the JSON path, not found out partitions later.
            spool_.load_input(t.j, t.name.empty() ? std::string("the submitted input") : t.name, check_circuit_);
        } catch (const input_error& e) {
            o.error = e.what();
        } catch (const std::exception& e) {
            o.error = e.what();
            o.internal = true;
        }
        if (!o.error.empty()) spool_.remove_job(t.j.id);
        o.checked = std::move(t.j);
        lock.lock();
        done_.push_back(std::move(o));
        --running_;
    }
}

}  // namespace cuzk::assemblerd
