// Errors of the CUDA backend, and the question "is there a GPU here", for code compiled without nvcc.
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk::cuda {

// A failed CUDA call or kernel launch: the message names the call, where it was made and the CUDA
// error string. A GPU error fails the work in hand; the caller decides whether to retry.
class cuda_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Number of usable CUDA devices; 0 (and |why| set) when the driver or a device is missing. Never throws.
int device_count(std::string* why = nullptr);
// "NVIDIA H200, 132 SMs, 139.8 GiB, sm_90" for logs and benchmark headers.
std::string device_description(int device);
// Waits for all work on |device|; throws cuda_error on an asynchronous failure.
void synchronize(int device);

}  // namespace cuzk::cuda
