// See cuda_faults.hpp.
#include "tests/support/cuda_faults.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace {
__global__ void store_through(unsigned* p) { *p = 1u; }
}  // namespace

namespace cuzk::test {

int provoke_illegal_address(int device) {
    if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return int(e);
    // The first page is never mapped on the device: a store there is an illegal address, not a bad argument.
    store_through<<<1, 1>>>(reinterpret_cast<unsigned*>(std::uintptr_t(0x10)));
    return int(cudaDeviceSynchronize());
}

}  // namespace cuzk::test
