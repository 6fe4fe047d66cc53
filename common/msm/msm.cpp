// The G1 and G2 instantiations of the MSM templates, compiled once for the whole project.
#include "common/msm/msm.hpp"

namespace cuzk::msm {

template jacobian_t<ff::fp_t> pippenger<ff::fp_t>(std::span<const affine_t<ff::fp_t>>, std::span<const scalar_repr_t>,
                                                   const pippenger_options&);
template jacobian_t<ff::fp2_t> pippenger<ff::fp2_t>(std::span<const affine_t<ff::fp2_t>>,
                                                     std::span<const scalar_repr_t>, const pippenger_options&);
template jacobian_t<ff::fp_t> multi_exp<ff::fp_t>(std::span<const affine_t<ff::fp_t>>, std::span<const ff::fr_t>,
                                                   msm_stats*, const pippenger_options&);
template jacobian_t<ff::fp2_t> multi_exp<ff::fp2_t>(std::span<const affine_t<ff::fp2_t>>, std::span<const ff::fr_t>,
                                                     msm_stats*, const pippenger_options&);

}  // namespace cuzk::msm
