// The priority of the CUDA streams a context (MSM, NTT, compact witness) creates. Work that runs beside the CUDA
// lock's holder (a WinningPoSt's kernels, gpud/proving_backend.hpp: run_kernels_beside_lock) uses high-priority
// streams: the GPU's block scheduler then starts their blocks ahead of the holder's pending ones as SMs free up, so
// a small partition waits for blocks in flight (microseconds to milliseconds), not for the holder's whole kernels.
#pragma once

namespace cuzk::cuda {

enum class stream_priority { normal, high };

}  // namespace cuzk::cuda
