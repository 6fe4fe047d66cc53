// Errors of the CUDA backend, and the question "is there a GPU here", for code compiled without nvcc.
#pragma once

#include <cstddef>
#include <string>

#include "gpud/device_error.hpp"

namespace cuzk::cuda {

// A failed CUDA call or kernel launch: the message names the call, where it was made and the CUDA
// error string. A GPU error fails the work in hand; as a device_error, gpud reports the partition retryable.
class cuda_error : public gpud::device_error {
public:
    using gpud::device_error::device_error;
};

// A device allocation refused for want of memory (cudaErrorMemoryAllocation): |bytes| were asked. Not sticky:
// the context still works, so the CUDA backend frees its MSM scratch, plans again with that much less and
// retries (cuda_backend::run_kernels).
class device_out_of_memory : public cuda_error {
public:
    device_out_of_memory(const std::string& what, size_t bytes) : cuda_error(what), bytes_(bytes) {}
    size_t bytes() const { return bytes_; }

private:
    size_t bytes_;
};

// Number of usable CUDA devices; 0 (and |why| set) when the driver or a device is missing. Never throws.
int device_count(std::string* why = nullptr);
// "NVIDIA H200, 132 SMs, 139.8 GiB, sm_90" for logs and benchmark headers.
std::string device_description(int device);
// Waits for all work on |device|; throws cuda_error on an asynchronous failure.
void synchronize(int device);
// Bytes of |device|'s memory free now (cudaMemGetInfo); throws cuda_error when it cannot be asked.
size_t free_device_memory(int device);
// |device|'s name ("NVIDIA H200") and memory (cudaGetDeviceProperties); throws cuda_error.
struct device_identity {
    std::string name;
    size_t total_bytes = 0;
};
device_identity identify_device(int device);
// Empty while |device|'s CUDA context works; else the sticky error that spoiled it ("cudaErrorIllegalAddress
// (an illegal memory access was encountered)"): an illegal address, a launch failure, ... come back from every
// later call on the context, so only a new process recovers. Clears the thread's last error first (one already
// thrown as a cuda_error is not the context's), then cudaDeviceSynchronize(), which also waits for the work
// queued on the device by other threads. Takes no lock; never throws.
std::string context_error(int device);

}  // namespace cuzk::cuda
