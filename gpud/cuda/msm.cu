// GPU multi-scalar multiplication (msm.hpp) for G1 (Fp points) and G2 (Fp2 points): the kernels are in the
// phase headers (msm_classify, msm_ones, msm_sort, msm_accumulate, msm_batch_affine, msm_split,
// msm_reduce, msm_points), sequenced by msm_run.cuh; msm_context's members are in msm_context.cuh.
#include "gpud/cuda/msm_context.cuh"

namespace cuzk::cuda {

// The device types share the host types' layout: scalars, points and bucket sums are copied as bytes.
static_assert(sizeof(fp_t) == sizeof(ff::fp_t) && sizeof(fp2_t) == sizeof(ff::fp2_t));
static_assert(sizeof(fr_t) == sizeof(ff::fr_t));
static_assert(sizeof(dev_xyzz<fp_t>) == sizeof(ec::xyzz_t<ff::fp_t>));
static_assert(sizeof(dev_xyzz<fp2_t>) == sizeof(ec::xyzz_t<ff::fp2_t>));

template class msm_context<ff::fp_t>;
template class msm_context<ff::fp2_t>;

}  // namespace cuzk::cuda
