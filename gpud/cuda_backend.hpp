// The CUDA proving backend (built where nvcc is found, cuzk_cuda): the kernels of a partition on one GPU.
//   prepare      CPU: groth16::prepare_partition (rows padded, A/B scalars compacted by density); with B_G2 on
//                the CPU, its multi-exponentiation starts on a CPU thread here, overlapping the wait for the
//                CUDA lock and the kernels
//   run_kernels  GPU, under the CUDA lock: the parameters' points are made resident on first use (h, l, a,
//                b_g1 back to back in one G1 MSM context, so the four MSMs share one set of scratch buffers;
//                b_g2 in a G2 context when B_G2 is on the GPU; one upload per parameters object), the rows go
//                to the device, H by the device NTTs, its coefficients handed to the H MSM in device memory,
//                then the H, L, A, B_G1 (and B_G2) MSMs
//   finish       CPU: B_G2 from the GPU or the CPU thread, blinding with r and s, the proof
//                (groth16::blind_proof, as the CPU backend does: both give the same proof for the same draws)
// B_G2 goes to the GPU by default: for a synthetic 32 GiB-shape partition on an H200 it took 255 ms there
// against ~15 s on 16 CPU threads (BENCHMARKS.md).
// Every CUDA failure throws cuda::cuda_error; the gpud worker fails the partition with its message.
#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "gpud/proving_backend.hpp"

namespace cuzk::cuda {
class ntt_context;
template <class F>
class msm_context;
}  // namespace cuzk::cuda

namespace cuzk::gpud {

class cuda_backend final : public proving_backend {
public:
    // Throws cuda::cuda_error when |gpu| is not a usable device.
    explicit cuda_backend(int gpu, bool b_g2_on_gpu = true);
    ~cuda_backend() override;
    std::string_view name() const override { return "cuda"; }
    std::unique_ptr<partition_work> prepare(const groth16::witness_view& w, const groth16::parameters& params) override;
    void run_kernels(partition_work& work) override;
    groth16::proof finish(partition_work& work, groth16::rng_fn& rng) override;

    // Parameter sets resident on the device now, and their bytes (for logs and tests).
    size_t resident_sets() const;
    size_t resident_bytes() const;

    struct resident_params;

private:
    resident_params& resident_for(const groth16::parameters& params);

    int gpu_;
    bool b_g2_on_gpu_;
    mutable std::mutex mu_;  // kernels of one partition at a time (the CUDA lock already orders workers)
    std::unique_ptr<cuda::ntt_context> ntt_;
    std::map<const groth16::parameters*, std::unique_ptr<resident_params>> resident_;
};

}  // namespace cuzk::gpud
