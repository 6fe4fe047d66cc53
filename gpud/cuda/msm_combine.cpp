#include "gpud/cuda/msm_combine.hpp"

namespace cuzk::cuda::detail {

template <class F>
ec::jacobian_t<F> combine_window_sums(const ec::xyzz_t<F>* ones, const ec::xyzz_t<F>* windows, size_t count,
                                      const unsigned* widths) {
    ec::jacobian_t<F> acc;
    for (size_t w = count; w-- > 0;) {
        for (unsigned d = 0; d < widths[w]; ++d) acc = acc.dbl();
        acc = acc + windows[w].to_jacobian();
    }
    if (ones) acc = acc + ones->to_jacobian();
    return acc;
}

template ec::jacobian_t<ff::fp_t> combine_window_sums<ff::fp_t>(const ec::xyzz_t<ff::fp_t>*,
                                                               const ec::xyzz_t<ff::fp_t>*, size_t, const unsigned*);
template ec::jacobian_t<ff::fp2_t> combine_window_sums<ff::fp2_t>(const ec::xyzz_t<ff::fp2_t>*,
                                                                 const ec::xyzz_t<ff::fp2_t>*, size_t,
                                                                 const unsigned*);

template <class F>
ec::jacobian_t<F> add_sums(const ec::jacobian_t<F>& a, const ec::jacobian_t<F>& b) {
    return a + b;
}

template ec::jacobian_t<ff::fp_t> add_sums<ff::fp_t>(const ec::jacobian_t<ff::fp_t>&, const ec::jacobian_t<ff::fp_t>&);
template ec::jacobian_t<ff::fp2_t> add_sums<ff::fp2_t>(const ec::jacobian_t<ff::fp2_t>&,
                                                       const ec::jacobian_t<ff::fp2_t>&);

}  // namespace cuzk::cuda::detail
