// How the CUDA backend shares the device memory left beside a parameters set's points, decided once per set
// before its first kernels (cuda_backend::plan_device_memory): the MSM contexts' scratch limits
// (plan_msm_scratch, over scratch_plan.hpp's arithmetic) and, where room is left, the NTT context's spare slot
// for the waiting partition's row a (b_g2_prestage.hpp).
#pragma once

#include <cstddef>

namespace cuzk::gpud {

// Device memory kept out of every plan: the CUDA runtime's own, cub's temporaries, rounding.
inline constexpr size_t device_reserve = size_t(1) << 30;

// Device memory a set whose points are split between the device and host memory ([gpud] params_memory =
// "split") leaves free beside the kernels' least needs by the estimates: for a small set made resident later (a
// 32 GiB WinningPoSt's points, matrices and the side lane's buffers take ~0.3 GiB) and for the MSMs' scratch,
// which those estimates undercount (13.2 GiB for a 32 GiB PoRep partition's least). Measured on an H100 80GB with
// that set: with 2 GiB left, the partition's kernels held 15.5 GiB of scratch and were refused 2.2 GB more; with
// 8, they held 18.3 (G1 10.8, G2 7.5) and were refused 4.4 GB more, so ~22.7 GiB in all: 12 leaves that and
// 2.5 GiB. An allocation refused makes the set stream whole (plan_after_out_of_memory), as "auto" places it.
inline constexpr size_t split_keeps_free = size_t(12) << 30;

// What the NTT context still has to allocate for H at 2^log_m (0 with one row: no H), beyond the |ntt_held| it has.
size_t ntt_still_needed(unsigned log_m, size_t ntt_held);

}  // namespace cuzk::gpud
