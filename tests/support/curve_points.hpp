// Test points on the curves that are (almost surely) outside the prime-order subgroup.
#pragma once

#include "common/ec/affine.hpp"

namespace cuzk::test {

// A point of E(Fp) or E'(Fp2) from a random x, not multiplied by the cofactor: almost never in the
// subgroup, because the cofactor is huge.
template <class F, class Rng>
ec::affine_t<F> random_curve_point(Rng& rng) {
    for (;;) {
        F x = F::random(rng);
        F y;
        if ((x.sqr() * x + ec::curve_b<F>()).sqrt(y)) {
            if (rng() & 1) y = -y;
            return ec::affine_t<F>::from_xy(x, y);
        }
    }
}

}  // namespace cuzk::test
