// Host-side end of a GPU MSM: the window sums (and the sum of the one-scalar points) come back as
// XYZZ points and are combined here, in a file compiled by the host compiler: the host field
// templates are not device code.
#pragma once

#include <cstddef>

#include "common/ec/xyzz.hpp"

namespace cuzk::cuda::detail {

// sum_w 2^(b_w) windows[w], b_w = widths[0] + ... + widths[w - 1] (Horner: widths[w] doublings before window
// w is added, from the top), plus *ones when |ones| is not null.
template <class F>
ec::jacobian_t<F> combine_window_sums(const ec::xyzz_t<F>* ones, const ec::xyzz_t<F>* windows, size_t count,
                                      const unsigned* widths);

extern template ec::jacobian_t<ff::fp_t> combine_window_sums<ff::fp_t>(const ec::xyzz_t<ff::fp_t>*,
                                                                      const ec::xyzz_t<ff::fp_t>*, size_t,
                                                                      const unsigned*);
extern template ec::jacobian_t<ff::fp2_t> combine_window_sums<ff::fp2_t>(const ec::xyzz_t<ff::fp2_t>*,
                                                                        const ec::xyzz_t<ff::fp2_t>*, size_t,
                                                                        const unsigned*);

// a + b on the host (the segments of a run over host points, msm_run.cuh), here for the same reason.
template <class F>
ec::jacobian_t<F> add_sums(const ec::jacobian_t<F>& a, const ec::jacobian_t<F>& b);

}  // namespace cuzk::cuda::detail
