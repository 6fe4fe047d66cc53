// How the CUDA backend shares the device memory left beside a parameters set's points, decided once per set
// before its first kernels (cuda_backend::plan_device_memory): the MSM contexts' scratch limits
// (plan_msm_scratch, over scratch_plan.hpp's arithmetic) and, where room is left, the NTT context's spare slot
// for the waiting partition's row a (b_g2_prestage.hpp).
#pragma once

#include <cstddef>

namespace cuzk::gpud {

// Device memory kept out of every plan: the CUDA runtime's own, cub's temporaries, rounding.
inline constexpr size_t device_reserve = size_t(1) << 30;

// What the NTT context still has to allocate for H at 2^log_m (0 with one row: no H), beyond the |ntt_held| it has.
size_t ntt_still_needed(unsigned log_m, size_t ntt_held);

}  // namespace cuzk::gpud
