// CUDA_OK(call) throws cuda_error naming the call, the file and line and the CUDA error string;
// CUDA_LAUNCH_OK(name) does the same for the kernel launch just made (cudaGetLastError).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/stream_priority.hpp"

namespace cuzk::cuda::detail {
[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
    // Reset the thread's last-error state, so a later launch check does not report this error again (a
    // sticky error, one that spoils the context, comes back from every later call anyway).
    (void)cudaGetLastError();
    throw cuda_error(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                     cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
}  // namespace cuzk::cuda::detail

#define CUDA_OK(call)                                                                  \
    do {                                                                               \
        cudaError_t cuzk_e_ = (call);                                                  \
        if (cuzk_e_ != cudaSuccess) ::cuzk::cuda::detail::throw_cuda(cuzk_e_, #call, __FILE__, __LINE__); \
    } while (0)

#define CUDA_LAUNCH_OK(name)                                                           \
    do {                                                                               \
        cudaError_t cuzk_e_ = cudaGetLastError();                                      \
        if (cuzk_e_ != cudaSuccess)                                                    \
            ::cuzk::cuda::detail::throw_cuda(cuzk_e_, "launch of " name, __FILE__, __LINE__); \
    } while (0)

namespace cuzk::cuda::detail {
// A non-blocking stream (it never waits for the legacy default stream) of priority |p| on the current device:
// stream_priority::high is the device's greatest priority.
inline cudaStream_t new_stream(stream_priority p) {
    int least = 0, greatest = 0;
    CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s = nullptr;
    CUDA_OK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, p == stream_priority::high ? greatest : least));
    return s;
}
}  // namespace cuzk::cuda::detail
