// Groth16 keys in bellperson's shape: the verifying key and the prover's parameters (the CRS).
#pragma once

#include <cstddef>
#include <vector>

#include "common/ec/affine.hpp"

namespace cuzk::groth16 {

// Invariant: no point is the identity (bellperson rejects one in ic when reading).
struct verifying_key {
    ec::g1_affine_t alpha_g1;
    ec::g1_affine_t beta_g1;
    ec::g2_affine_t beta_g2;
    ec::g2_affine_t gamma_g2;
    ec::g1_affine_t delta_g1;
    ec::g2_affine_t delta_g2;
    // (beta u_i(tau) + alpha v_i(tau) + w_i(tau)) / gamma for each public input; ic[0] is ONE.
    std::vector<ec::g1_affine_t> ic;

    friend bool operator==(const verifying_key&, const verifying_key&) = default;
};

// Invariant: no vector holds the identity; identity points of the A and B queries are dropped at
// setup, so a[], b_g1[] and b_g2[] are indexed through the prover's density bitmaps.
struct parameters {
    verifying_key vk;
    // tau^i Z(tau) / delta for i in [0, m - 1): monomial basis, m the evaluation domain size.
    std::vector<ec::g1_affine_t> h;
    // (beta u_j(tau) + alpha v_j(tau) + w_j(tau)) / delta for each aux variable j.
    std::vector<ec::g1_affine_t> l;
    // u(tau) for every input, then for each aux variable that appears in some A row.
    std::vector<ec::g1_affine_t> a;
    // v(tau) for each input, then each aux variable, that appears in some B row.
    std::vector<ec::g1_affine_t> b_g1;
    std::vector<ec::g2_affine_t> b_g2;

    friend bool operator==(const parameters&, const parameters&) = default;
};

}  // namespace cuzk::groth16
