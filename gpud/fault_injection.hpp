// A test facility: a proving_backend decorator that fails a chosen step with cuda::cuda_error, the exception a
// failing GPU throws, so that gpud's handling of device failures (the partition retryable, assemblerd's cap on
// attempts, a lost context restarting gpud) runs for real on machines without a GPU. Selected only by the
// environment variable CUZK_GPUD_INJECT_FAULTS, read once when gpud starts (README, "Fault injection"):
//   <step>:<when>[,lost][,hold=MS]
//                          step: prepare, kernels or tail
//                          when: always | once (the first call) | every=N (calls N, 2N, 3N, ... of the step)
//                          lost: after the first injected failure the device reports its context lost
//                          hold: the first call of prepare waits MS milliseconds first, holding its slot while
//                          the other workers go on (so a test can have a partition in hand when a fault strikes)
// e.g. "kernels:every=2", "kernels:always", "kernels:once,lost", "kernels:once,lost,hold=3000". Calls are counted across the workers. Without
// "lost" the injected error is cudaErrorMemoryAllocation (a device failure that leaves the context usable),
// with it cudaErrorIllegalAddress (a sticky one).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gpud/partition_failure.hpp"
#include "gpud/proving_backend.hpp"

namespace cuzk::gpud {

inline constexpr const char* fault_injection_variable = "CUZK_GPUD_INJECT_FAULTS";

struct fault_plan {
    enum class schedule { always, once, every };
    proving_step step = proving_step::kernels;
    schedule when = schedule::always;
    std::uint32_t period = 1;  // schedule::every: N
    bool lost = false;
    std::uint32_t hold_ms = 0;  // hold=MS: the first prepare waits this long

    // Whether call |n| (1-based, of |step|) fails.
    bool fails(std::uint64_t n) const noexcept;
    // The plan in the variable's syntax ("kernels:every=2,lost").
    std::string text() const;
};

// Throws input_error naming the variable, the text, what is wrong in it and the expected form.
fault_plan parse_fault_plan(std::string_view text);
// The plan in CUZK_GPUD_INJECT_FAULTS; nullopt when it is unset or empty. Throws as parse_fault_plan.
std::optional<fault_plan> fault_plan_from_environment();

class fault_injecting_backend final : public proving_backend {
public:
    fault_injecting_backend(std::unique_ptr<proving_backend> inner, fault_plan plan);

    // "<inner>+faults": `cuzk status` shows that faults are injected.
    std::string_view name() const override { return name_; }
    std::unique_ptr<partition_work> prepare(const groth16::witness_view& w, const groth16::parameters& params) override;
    std::unique_ptr<partition_work> prepare_compact(const compact_partition& w,
                                                    const groth16::parameters& params) override;
    void run_kernels(partition_work& work) override;
    bool can_run_beside_lock(const partition_work& work) const override { return inner_->can_run_beside_lock(work); }
    // A "kernels" fault strikes here too.
    void run_kernels_beside_lock(partition_work& work) override;
    groth16::proof finish(partition_work& work, groth16::rng_fn& rng) override;
    void register_host_region(std::span<const std::byte> region) override { inner_->register_host_region(region); }
    // With "lost", once a failure was injected: the injected sticky error; else the inner backend's answer.
    std::string device_lost() override;
    // The inner backend's, then injected_faults.
    std::vector<std::pair<std::string, std::uint64_t>> counters() const override;
    void forget(const groth16::parameters& params) override { inner_->forget(params); }
    void preload(const groth16::parameters& params, const r1cs::r1cs_matrices* matrices) override {
        inner_->preload(params, matrices);
    }
    std::optional<device_info> device() const override { return inner_->device(); }
    pinned_memory pinned() const override { return inner_->pinned(); }

    std::uint64_t injected() const noexcept { return injected_.load(); }

private:
    // Counts a call of |step|; throws cuda::cuda_error when the plan says this call fails.
    void maybe_fail(proving_step step);

    std::unique_ptr<proving_backend> inner_;
    const fault_plan plan_;
    const std::string name_;
    std::atomic<std::uint64_t> calls_{0};     // calls of plan_.step so far, over all workers
    std::atomic<std::uint64_t> injected_{0};  // failures thrown so far
    std::atomic<bool> held_{false};           // the first prepare has taken its hold
};

}  // namespace cuzk::gpud
