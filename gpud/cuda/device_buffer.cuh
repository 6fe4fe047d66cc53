// Device memory by plain cudaMalloc, owned by a small RAII holder that only grows.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "gpud/cuda/check.cuh"

namespace cuzk::cuda {

template <class T>
class device_buffer {
public:
    device_buffer() = default;
    ~device_buffer() {
        if (ptr_) cudaFree(ptr_);  // no throw from a destructor; a failed free leaks at worst
    }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;

    // Ensures room for |n| elements; the contents are lost when it reallocates.
    void reserve(size_t n) {
        if (n <= cap_) return;
        if (ptr_) CUDA_OK(cudaFree(ptr_));
        ptr_ = nullptr;
        cap_ = 0;
        cudaError_t e = cudaMalloc(&ptr_, n * sizeof(T));
        if (e != cudaSuccess) {
            ptr_ = nullptr;
            const std::string what =
                "cudaMalloc of " + std::to_string(n * sizeof(T)) + " bytes failed: " + cudaGetErrorString(e);
            if (e == cudaErrorMemoryAllocation) {
                (void)cudaGetLastError();  // not the context's error: later calls must not see it
                throw device_out_of_memory(what, n * sizeof(T));
            }
            throw cuda_error(what);
        }
        cap_ = n;
    }
    // Frees the memory now (reserve allocates again when next asked).
    void release() {
        if (ptr_) CUDA_OK(cudaFree(ptr_));
        ptr_ = nullptr;
        cap_ = 0;
    }
    void swap(device_buffer& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(cap_, o.cap_);
    }
    T* get() const { return ptr_; }
    size_t capacity() const { return cap_; }
    size_t bytes() const { return cap_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t cap_ = 0;
};

// Blocks of |threads| covering |n| items.
inline unsigned grid_for(size_t n, unsigned threads) { return unsigned((n + threads - 1) / threads); }

}  // namespace cuzk::cuda
