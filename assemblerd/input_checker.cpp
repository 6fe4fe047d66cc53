#include "assemblerd/input_checker.hpp"

#include <exception>
#include <utility>

#include "common/util/errors.hpp"

namespace cuzk::assemblerd {

input_checker::input_checker(spool& s, bool check_circuit, std::function<void(const job&)> before_check)
    : spool_(s), check_circuit_(check_circuit), before_check_(std::move(before_check)) {
    for (unsigned t = 0; t < threads; ++t)
        threads_.emplace_back([this] { loop(priority_fifo<task>::any_priority); });
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
        const auto priority = j.priority;
        tasks_.push(priority, task{std::move(j), source, std::move(name), std::move(input)});
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
    while (true) {
        cv_.wait(lock, [&] { return stop_ || tasks_.first_at_least(min_priority); });
        if (stop_) return;  // unanswered submissions: never journaled, their clients retry
        task t = tasks_.pop();
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
