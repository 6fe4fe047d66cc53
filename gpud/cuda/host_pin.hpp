// Page-locking of host memory the program already holds (cudaHostRegister), so host-to-device copies from it
// go by DMA at the link's rate instead of being staged by the driver through its own pinned buffers.
//
//   cuda::host_pin pin(gpu, v.data(), v.size() * sizeof v[0]);   // CPU work: outside the CUDA lock
//   ... copies from v (cudaMemcpyAsync on a stream) ...
//   pin.unpin();                                                  // before v is freed or reallocated
//
// Registration is tried, never required: when the driver refuses (a range it cannot pin, a memory-lock limit,
// a page already registered by another range: registrations may not overlap, and two heap blocks can share a
// page) pinned() is false, error() says why, and copies from the range still work from pageable memory.
// Registering and unregistering do no GPU work; they cost CPU time (page-table walks) roughly in proportion to
// the bytes. The memory must stay allocated, at the same address, until unpin() or the destructor: freeing a
// registered range would let the driver's mapping outlive the pages (unpin first, then free).
// This header needs no CUDA headers; host_pin.cpp does the calls.
#pragma once

#include <cstddef>
#include <string>

namespace cuzk::cuda {

class host_pin {
public:
    host_pin() = default;
    // Registers [data, data + bytes) for copies to any device (portable), with |device| current. Never throws for
    // a refused registration (see above); an empty range is simply not pinned, with no error.
    // |mapped|: kernels may also read the range in place (cudaHostRegisterMapped; the MSM's sparse streaming,
    // gpud/cuda/msm_sparse_stream.cuh).
    host_pin(int device, const void* data, size_t bytes, bool mapped = false);
    ~host_pin();  // unpin(), with any failure swallowed (its error state cleared)
    host_pin(host_pin&& o) noexcept;
    host_pin& operator=(host_pin&& o) noexcept;
    host_pin(const host_pin&) = delete;
    host_pin& operator=(const host_pin&) = delete;

    bool pinned() const { return data_ != nullptr; }
    size_t bytes() const { return bytes_; }  // of the range asked for, pinned or not
    // Why the registration was refused ("" when pinned or not tried), and whether it was refused only because
    // a page of the range is registered already (an expected case for small heap blocks, not a fault).
    const std::string& error() const { return error_; }
    bool already_registered() const { return already_registered_; }
    // Whether [p, p + n) lies inside the pinned range.
    bool contains(const void* p, size_t n) const {
        const auto* lo = static_cast<const unsigned char*>(data_);
        const auto* at = static_cast<const unsigned char*>(p);
        return data_ != nullptr && at >= lo && n <= bytes_ && size_t(at - lo) <= bytes_ - n;
    }

    // Unregisters now; a no-op when not pinned. Throws cuda_error when cudaHostUnregister fails; the range
    // counts as unpinned afterwards either way (it is never unregistered twice).
    void unpin();

private:
    const void* data_ = nullptr;  // non-null while registered
    size_t bytes_ = 0;
    int device_ = 0;
    std::string error_;
    bool already_registered_ = false;
};

}  // namespace cuzk::cuda
