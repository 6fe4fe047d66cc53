#include "gpud/fault_injection.hpp"

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "common/util/errors.hpp"
#include "gpud/cuda/cuda_error.hpp"

namespace cuzk::gpud {

namespace {

// The errors a real failure of each kind reports (cudaGetErrorName and cudaGetErrorString).
constexpr std::string_view transient_error = "cudaErrorMemoryAllocation (out of memory)";
constexpr std::string_view sticky_error = "cudaErrorIllegalAddress (an illegal memory access was encountered)";

[[noreturn]] void malformed(std::string_view text, const std::string& what) {
    throw input_error(fmt::format("{}='{}': {}; expected <prepare|kernels|tail>:<always|once|every=N>[,lost]"
                                  "[,hold=MS], e.g. "
                                  "'kernels:every=2' (a test facility, see README \"Fault injection\"; unset it to "
                                  "prove normally)",
                                  fault_injection_variable, text, what));
}

}  // namespace

bool fault_plan::fails(std::uint64_t n) const noexcept {
    switch (when) {
        case schedule::always: return true;
        case schedule::once: return n == 1;
        case schedule::every: return period != 0 && n % period == 0;
    }
    return false;
}

std::string fault_plan::text() const {
    const std::string schedule_text = when == schedule::always ? "always"
                                      : when == schedule::once ? "once"
                                                               : fmt::format("every={}", period);
    return fmt::format("{}:{}{}{}", to_string(step), schedule_text, lost ? ",lost" : "",
                       hold_ms ? fmt::format(",hold={}", hold_ms) : std::string());
}

fault_plan parse_fault_plan(std::string_view text) {
    fault_plan plan;
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) malformed(text, "no ':' between the step and when it fails");
    const auto step = text.substr(0, colon);
    if (step == "prepare") plan.step = proving_step::prepare;
    else if (step == "kernels") plan.step = proving_step::kernels;
    else if (step == "tail") plan.step = proving_step::tail;
    else malformed(text, fmt::format("step '{}' is not prepare, kernels or tail", step));

    auto rest = text.substr(colon + 1);
    const auto comma = rest.find(',');
    const auto when = rest.substr(0, comma);
    if (when == "always") {
        plan.when = fault_plan::schedule::always;
    } else if (when == "once") {
        plan.when = fault_plan::schedule::once;
    } else if (when.starts_with("every=")) {
        const auto n = when.substr(6);
        std::uint32_t period = 0;
        const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), period);
        if (n.empty() || ec != std::errc{} || end != n.data() + n.size() || period == 0)
            malformed(text, fmt::format("every=N needs a whole number N of at least 1, not '{}'", n));
        plan.when = fault_plan::schedule::every;
        plan.period = period;
    } else {
        malformed(text, fmt::format("'{}' is not always, once or every=N", when));
    }
    // Flags after the schedule, each at most once: "lost", "hold=MS".
    if (comma != std::string_view::npos && comma + 1 == rest.size()) malformed(text, "a ',' with no flag after it");
    for (auto flags = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1); !flags.empty();) {
        const auto next = flags.find(',');
        const auto flag = flags.substr(0, next);
        flags = next == std::string_view::npos ? std::string_view() : flags.substr(next + 1);
        if (flag == "lost" && !plan.lost) {
            plan.lost = true;
        } else if (flag.starts_with("hold=") && plan.hold_ms == 0) {
            const auto ms = flag.substr(5);
            std::uint32_t v = 0;
            const auto [end, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), v);
            if (ms.empty() || ec != std::errc{} || end != ms.data() + ms.size() || v == 0 || v > 600000)
                malformed(text, fmt::format("hold=MS needs a whole number of milliseconds in 1..600000, not '{}'", ms));
            plan.hold_ms = v;
        } else {
            malformed(text, fmt::format("'{}' after the ',' is not 'lost' or 'hold=MS' (each at most once)", flag));
        }
        if (next != std::string_view::npos && flags.empty()) malformed(text, "a ',' with no flag after it");
    }
    return plan;
}

std::optional<fault_plan> fault_plan_from_environment() {
    const char* value = std::getenv(fault_injection_variable);
    if (!value || !*value) return std::nullopt;
    return parse_fault_plan(value);
}

fault_injecting_backend::fault_injecting_backend(std::unique_ptr<proving_backend> inner, fault_plan plan)
    : inner_(std::move(inner)), plan_(plan), name_(fmt::format("{}+faults", inner_->name())) {}

void fault_injecting_backend::maybe_fail(proving_step step) {
    if (step != plan_.step) return;
    const auto n = ++calls_;
    if (!plan_.fails(n)) return;
    ++injected_;
    throw cuda::cuda_error(fmt::format("{} call {} failed (injected by {}={}): {}", to_string(step), n,
                                       fault_injection_variable, plan_.text(),
                                       plan_.lost ? sticky_error : transient_error));
}

std::unique_ptr<partition_work> fault_injecting_backend::prepare(const groth16::witness_view& w,
                                                                 const groth16::parameters& params) {
    if (plan_.hold_ms && !held_.exchange(true))
        std::this_thread::sleep_for(std::chrono::milliseconds(plan_.hold_ms));
    maybe_fail(proving_step::prepare);
    return inner_->prepare(w, params);
}

std::unique_ptr<partition_work> fault_injecting_backend::prepare_compact(const compact_partition& w,
                                                                         const groth16::parameters& params) {
    if (plan_.hold_ms && !held_.exchange(true))
        std::this_thread::sleep_for(std::chrono::milliseconds(plan_.hold_ms));
    maybe_fail(proving_step::prepare);
    return inner_->prepare_compact(w, params);
}

void fault_injecting_backend::run_kernels(partition_work& work) {
    maybe_fail(proving_step::kernels);
    inner_->run_kernels(work);
}

void fault_injecting_backend::run_kernels_beside_lock(partition_work& work) {
    maybe_fail(proving_step::kernels);
    inner_->run_kernels_beside_lock(work);
}

groth16::proof fault_injecting_backend::finish(partition_work& work, groth16::rng_fn& rng) {
    maybe_fail(proving_step::tail);
    return inner_->finish(work, rng);
}

std::string fault_injecting_backend::device_lost() {
    if (plan_.lost && injected_.load() > 0)
        return fmt::format("{} (injected by {}={})", sticky_error, fault_injection_variable, plan_.text());
    return inner_->device_lost();
}

std::vector<std::pair<std::string, std::uint64_t>> fault_injecting_backend::counters() const {
    auto all = inner_->counters();
    all.emplace_back("injected_faults", injected_.load());
    return all;
}

}  // namespace cuzk::gpud
