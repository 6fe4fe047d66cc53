// Domain constants for the GPU NTT, computed by the host field code (kept out of the .cu files: the
// host field templates are not device code).
#include "common/ntt/domain.hpp"
#include "gpud/cuda/ntt.hpp"

namespace cuzk::cuda::detail {

ntt_constants make_ntt_constants(unsigned log_n) {
    ntt::domain d(log_n);
    ntt_constants k{d.omega(), d.omega_inv(), d.size_inv(), d.coset_gen(), d.coset_gen_inv(), d.vanishing_on_coset_inv(),
                    d.coset_gen(), d.coset_gen_inv(), d.vanishing_on_coset_inv() * d.size_inv()};
    for (unsigned i = 0; i < coset_split(log_n); ++i) {
        k.g_step = k.g_step.sqr();
        k.g_inv_step = k.g_inv_step.sqr();
    }
    return k;
}

}  // namespace cuzk::cuda::detail
