// How a gpud worker classifies what a step threw: a device failure (any device_error, cuda::cuda_error the one a
// GPU throws) is retryable and names the GPU, the worker, the step and the error's text; anything else is the
// partition's input (a witness or parameter problem), not retryable, its message as it was. Runs in every build.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/util/errors.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/device_error.hpp"
#include "gpud/partition_failure.hpp"

using namespace cuzk;
using gpud::proving_step;

namespace {

// A device failure of some other backend than CUDA.
class other_device_error : public gpud::device_error {
public:
    using gpud::device_error::device_error;
};

}  // namespace

static_assert(std::is_base_of_v<gpud::device_error, cuda::cuda_error>, "gpud classifies CUDA errors by device_error");

TEST(GpudPartitionFailure, ACudaErrorIsRetryableAndNamesGpuWorkerStepAndTheCudaError) {
    const std::string cuda_text =
        "launch of msm_accumulate failed at gpud/cuda/msm.cu:412: cudaErrorIllegalAddress (an illegal memory access "
        "was encountered)";
    const auto f = gpud::classify_failure(cuda::cuda_error(cuda_text), 3, 1, proving_step::kernels);
    EXPECT_TRUE(f.retryable);
    EXPECT_EQ(f.message, "GPU 3 worker 1 kernels: device failure: " + cuda_text);
}

TEST(GpudPartitionFailure, EveryStepIsNamedInADeviceFailure) {
    const cuda::cuda_error e("cudaMemcpyAsync failed at x.cu:1: cudaErrorLaunchFailure (unspecified launch failure)");
    EXPECT_EQ(gpud::classify_failure(e, 0, 0, proving_step::prepare).message.rfind("GPU 0 worker 0 prepare: ", 0), 0u);
    EXPECT_EQ(gpud::classify_failure(e, 0, 0, proving_step::kernels).message.rfind("GPU 0 worker 0 kernels: ", 0), 0u);
    EXPECT_EQ(gpud::classify_failure(e, 0, 0, proving_step::tail).message.rfind("GPU 0 worker 0 tail: ", 0), 0u);
    EXPECT_EQ(gpud::to_string(proving_step::prepare), "prepare");
    EXPECT_EQ(gpud::to_string(proving_step::kernels), "kernels");
    EXPECT_EQ(gpud::to_string(proving_step::tail), "tail");
}

TEST(GpudPartitionFailure, AnotherBackendsDeviceErrorIsRetryableToo) {
    const auto f = gpud::classify_failure(other_device_error("queue lost"), 2, 0, proving_step::tail);
    EXPECT_TRUE(f.retryable);
    EXPECT_EQ(f.message, "GPU 2 worker 0 tail: device failure: queue lost");
}

TEST(GpudPartitionFailure, InputProblemsAreNotRetryableAndKeepTheirText) {
    const std::string missing = "/var/lib/cuzk/spool/params/porep_StackedDrg2KiBV1_1.params: no such file";
    const auto params = gpud::classify_failure(input_error(missing), 0, 1, proving_step::prepare);
    EXPECT_FALSE(params.retryable);
    EXPECT_EQ(params.message, missing);
    const auto mismatch =
        gpud::classify_failure(std::invalid_argument("witness has 12 inputs, parameters 13"), 0, 0, proving_step::prepare);
    EXPECT_FALSE(mismatch.retryable);
    EXPECT_EQ(mismatch.message, "witness has 12 inputs, parameters 13");
    const auto format = gpud::classify_failure(std::runtime_error("slot payload format 7 is not a witness"), 0, 0,
                                               proving_step::prepare);
    EXPECT_FALSE(format.retryable);
    EXPECT_EQ(format.message, "slot payload format 7 is not a witness");
    // Host memory running out is not the device's: proving again would meet the same machine.
    EXPECT_FALSE(gpud::classify_failure(std::bad_alloc(), 0, 0, proving_step::tail).retryable);
}
