// Faults only a real GPU can have, provoked on purpose for the tests of gpud's lost-device handling
// (tests/support/cuda_faults.cu; linked into test_cuda_backend only).
#pragma once

namespace cuzk::test {

// Launches one thread that stores through an address no allocation holds and waits for it: the sticky
// cudaErrorIllegalAddress, which spoils the calling process's CUDA context for good. Returns the wait's
// cudaError_t. Call it only in a process that is thrown away after (a death test's child).
int provoke_illegal_address(int device);

}  // namespace cuzk::test
