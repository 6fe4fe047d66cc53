// host_pin.hpp. Host code only (no kernels), compiled by the host compiler against the CUDA runtime's headers.
#include "gpud/cuda/host_pin.hpp"

#include <utility>

#include "gpud/cuda/check.cuh"

namespace cuzk::cuda {

host_pin::host_pin(int device, const void* data, size_t bytes, bool mapped) : bytes_(bytes), device_(device) {
    if (data == nullptr || bytes == 0) return;
    cudaError_t e = cudaSetDevice(device);
    const char* what = "cudaSetDevice";
    if (e == cudaSuccess) {
        // The runtime takes a non-const pointer; registration does not write the memory.
        e = cudaHostRegister(const_cast<void*>(data), bytes,
                             cudaHostRegisterPortable | (mapped ? cudaHostRegisterMapped : 0u));
        what = "cudaHostRegister";
    }
    if (e != cudaSuccess) {
        // A refused registration is not an error of the work: clear the thread's last-error state, so a later
        // launch check (CUDA_LAUNCH_OK) does not report it.
        (void)cudaGetLastError();
        already_registered_ = e == cudaErrorHostMemoryAlreadyRegistered;
        error_ = std::string(what) + " of " + std::to_string(bytes) + " bytes on GPU " + std::to_string(device) +
                 ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
        return;
    }
    data_ = data;
}

host_pin::~host_pin() {
    try {
        unpin();
    } catch (...) {
        // No throw from a destructor. The pages stay locked at worst (a failed unregister means a broken CUDA
        // context, which fails everything after it anyway); unpin() has cleared the error state.
    }
}

host_pin::host_pin(host_pin&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      device_(o.device_),
      error_(std::move(o.error_)),
      already_registered_(std::exchange(o.already_registered_, false)) {}

host_pin& host_pin::operator=(host_pin&& o) noexcept {
    if (this != &o) {
        try {
            unpin();
        } catch (...) {
        }
        data_ = std::exchange(o.data_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
        device_ = o.device_;
        error_ = std::move(o.error_);
        already_registered_ = std::exchange(o.already_registered_, false);
    }
    return *this;
}

void host_pin::unpin() {
    if (data_ == nullptr) return;
    void* p = const_cast<void*>(std::exchange(data_, nullptr));
    // Unregistered even when the device cannot be made current (a portable registration belongs to no one
    // device): the range must not stay registered past this call if the driver can help it.
    const cudaError_t set = cudaSetDevice(device_);
    const cudaError_t e = cudaHostUnregister(p);
    if (e != cudaSuccess) detail::throw_cuda(e, "cudaHostUnregister", __FILE__, __LINE__);
    if (set != cudaSuccess) detail::throw_cuda(set, "cudaSetDevice", __FILE__, __LINE__);
}

}  // namespace cuzk::cuda
