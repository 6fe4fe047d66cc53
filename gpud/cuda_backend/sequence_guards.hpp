// What every kernel sequence of the CUDA backend (kernel_sequence.cpp, compact_sequence.cpp) waits for on its
// way out, exceptions included, so that nothing of a partition outlives run_kernels: its B_G2 thread, and the NTT
// context's kernels and copies (the copies read host memory that finish() releases; the kernels write slots the
// next partition's rows go into from another stream).
#pragma once

#include <spdlog/spdlog.h>

#include <exception>
#include <future>

#include "common/ec/jacobian.hpp"
#include "gpud/cuda/ntt.hpp"

namespace cuzk::gpud {

struct join_on_exit {
    std::future<ec::g2_jacobian_t>& f;
    ~join_on_exit() {
        if (f.valid()) f.wait();
    }
};

struct ntt_done_on_exit {
    cuda::ntt_context& ntt;
    ~ntt_done_on_exit() {
        try {
            ntt.synchronize();
        } catch (const std::exception& e) {
            spdlog::error("CUDA backend: waiting for the NTT context's copies and kernels failed: {}", e.what());
        }
    }
};

}  // namespace cuzk::gpud
