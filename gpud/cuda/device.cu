// Device discovery, synchronisation and the health of a device's context (cuda_error.hpp).
#include <cstdio>

#include "gpud/cuda/check.cuh"

namespace cuzk::cuda {

int device_count(std::string* why) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        if (why) *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
        cudaGetLastError();  // clear the sticky-free error so later calls start clean
        return 0;
    }
    if (n == 0 && why) *why = "cudaGetDeviceCount reports 0 devices";
    return n;
}

std::string device_description(int device) {
    cudaDeviceProp p{};
    CUDA_OK(cudaGetDeviceProperties(&p, device));
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s, %d SMs, %.1f GiB, sm_%d%d", p.name, p.multiProcessorCount,
                  double(p.totalGlobalMem) / double(1ull << 30), p.major, p.minor);
    return buf;
}

device_identity identify_device(int device) {
    cudaDeviceProp p{};
    CUDA_OK(cudaGetDeviceProperties(&p, device));
    return {p.name, p.totalGlobalMem};
}

void synchronize(int device) {
    CUDA_OK(cudaSetDevice(device));
    CUDA_OK(cudaDeviceSynchronize());
}

size_t free_device_memory(int device) {
    CUDA_OK(cudaSetDevice(device));
    size_t free = 0, total = 0;
    CUDA_OK(cudaMemGetInfo(&free, &total));
    return free;
}

std::string context_error(int device) {
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) {
        (void)cudaGetLastError();  // the error the caller caught, if it was not sticky, is not asked about
        e = cudaDeviceSynchronize();  // a sticky error is returned again, by this and every later call
    }
    if (e == cudaSuccess) return {};
    std::string why = std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
    (void)cudaGetLastError();
    return why;
}

}  // namespace cuzk::cuda
