// Montgomery's trick: n conversions for one inversion and 3(n-1) multiplications.
#pragma once

#include <vector>

namespace cuzk::ec {

template <class F>
void batch_to_affine(const jacobian_t<F>* in, affine_t<F>* out, size_t n) {
    std::vector<F> prefix(n);
    F acc = F::one();
    for (size_t i = 0; i < n; ++i) {
        prefix[i] = acc;
        if (!in[i].is_identity()) acc *= in[i].z;
    }
    F inv = acc.inverse();
    for (size_t i = n; i-- > 0;) {
        if (in[i].is_identity()) {
            out[i] = affine_t<F>::identity();
            continue;
        }
        F zi = inv * prefix[i];
        inv *= in[i].z;
        F zi2 = zi.sqr();
        out[i] = affine_t<F>::from_xy(in[i].x * zi2, in[i].y * zi2 * zi);
    }
}

}  // namespace cuzk::ec
