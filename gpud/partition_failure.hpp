// What a gpud worker reports when proving a partition throws. A device_error (the GPU, its driver or its
// context failed; cuda::cuda_error is one) is the stage's: the partition is retryable and assemblerd dispatches
// it again, up to [assemblerd] max_partition_attempts. Anything else comes from the partition's own input (its
// witness, its parameters) and would fail again: not retryable, the job fails.
#pragma once

#include <exception>
#include <string>
#include <string_view>

namespace cuzk::gpud {

// The worker's steps, in order: prepare (CPU), kernels (under the CUDA lock), tail (CPU).
enum class proving_step { prepare, kernels, tail };
std::string_view to_string(proving_step step) noexcept;

struct partition_failure {
    bool retryable = false;  // a device failure
    // PARTITION_FAILED's text. A device failure names the GPU, the worker and the step before the error's
    // own text ("GPU 0 worker 1 kernels: device failure: launch of ... failed at ...: cudaErrorIllegalAddress
    // (...)"); an input problem is the error's text as it is (it names the file or field).
    std::string message;
};

partition_failure classify_failure(const std::exception& e, int gpu, unsigned worker, proving_step step);

}  // namespace cuzk::gpud
