#include "common/groth16/verifier.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <stdexcept>
#include <utility>

#include "common/ec/jacobian.hpp"
#include "common/msm/msm.hpp"

namespace cuzk::groth16 {

namespace {

void check_input_count(const prepared_verifying_key& pvk, size_t n, const char* where) {
    if (n + 1 != pvk.ic.size())
        throw std::invalid_argument(fmt::format(
            "{}: {} public inputs given, the verifying key expects {} (|ic| = {}, ic[0] being ONE)", where, n,
            pvk.ic.empty() ? 0 : pvk.ic.size() - 1, pvk.ic.size()));
}

// sum_i s_i ic[i+1] + s_one ic[0].
ec::g1_jacobian_t fold_inputs(const prepared_verifying_key& pvk, std::span<const ff::fr_t> scalars,
                              const ff::fr_t& s_one) {
    std::span<const ec::g1_affine_t> bases(pvk.ic.data() + 1, pvk.ic.size() - 1);
    ec::g1_jacobian_t acc = msm::multi_exp<ff::fp_t>(bases, scalars);
    return acc + ec::g1_jacobian_t::from_affine(pvk.ic[0]).mul(s_one);
}

}  // namespace

prepared_verifying_key prepare_verifying_key(const verifying_key& vk) {
    prepared_verifying_key p;
    p.alpha_g1_beta_g2 = ec::pairing(vk.alpha_g1, vk.beta_g2);
    p.neg_gamma_g2 = ec::prepare_g2(-vk.gamma_g2);
    p.neg_delta_g2 = ec::prepare_g2(-vk.delta_g2);
    p.beta_g2 = ec::prepare_g2(vk.beta_g2);
    p.alpha_g1 = vk.alpha_g1;
    p.ic = vk.ic;
    return p;
}

bool verify_proof(const prepared_verifying_key& pvk, const proof& pi, std::span<const ff::fr_t> public_inputs) {
    check_input_count(pvk, public_inputs.size(), "verify_proof");
    ec::g1_affine_t acc = fold_inputs(pvk, public_inputs, ff::fr_t::one()).to_affine();
    ec::g2_prepared b = ec::prepare_g2(pi.b);
    const std::pair<ec::g1_affine_t, const ec::g2_prepared*> terms[] = {
        {pi.a, &b}, {acc, &pvk.neg_gamma_g2}, {pi.c, &pvk.neg_delta_g2}};
    return ec::final_exponentiation(ec::multi_miller_loop(terms)) == pvk.alpha_g1_beta_g2;
}

bool batch_verify(const prepared_verifying_key& pvk, std::span<const proof> proofs,
                  std::span<const std::vector<ff::fr_t>> public_inputs, rng_fn rng) {
    if (proofs.size() != public_inputs.size())
        throw std::invalid_argument(fmt::format("batch_verify: {} proofs but {} public input vectors", proofs.size(),
                                                public_inputs.size()));
    for (const auto& x : public_inputs) check_input_count(pvk, x.size(), "batch_verify");
    const size_t n = proofs.size();
    if (n == 0) return true;

    // Non-zero 128-bit coefficients.
    std::vector<ff::fr_t> r(n);
    for (auto& rj : r) {
        ff::fr_t::repr_t v{};
        do {
            v[0] = rng();
            v[1] = rng();
        } while (v[0] == 0 && v[1] == 0);
        rj = ff::fr_t::from_canonical(v);
    }
    ff::fr_t sum_r;
    for (const auto& rj : r) sum_r += rj;

    // Input scalars of the combined accumulator: sum_j r_j x_{j,i}.
    const size_t k = pvk.ic.size() - 1;
    std::vector<ff::fr_t> pi_scalars(k);
    tbb::parallel_for(size_t(0), k, [&](size_t i) {
        ff::fr_t s;
        for (size_t j = 0; j < n; ++j) s += r[j] * public_inputs[j][i];
        pi_scalars[i] = s;
    });
    ec::g1_affine_t acc_pi = fold_inputs(pvk, pi_scalars, sum_r).to_affine();

    std::vector<ec::g1_affine_t> cs(n);
    for (size_t j = 0; j < n; ++j) cs[j] = proofs[j].c;
    ec::g1_affine_t acc_c = msm::multi_exp<ff::fp_t>(cs, r).to_affine();
    ec::g1_affine_t neg_sum_alpha = (-ec::g1_jacobian_t::from_affine(pvk.alpha_g1).mul(sum_r)).to_affine();

    std::vector<ec::g2_prepared> bs(n);
    std::vector<ec::g1_affine_t> ras(n);
    tbb::parallel_for(size_t(0), n, [&](size_t j) {
        bs[j] = ec::prepare_g2(proofs[j].b);
        ras[j] = ec::g1_jacobian_t::from_affine(proofs[j].a).mul(r[j]).to_affine();
    });

    std::vector<std::pair<ec::g1_affine_t, const ec::g2_prepared*>> terms;
    terms.reserve(n + 3);
    for (size_t j = 0; j < n; ++j) terms.emplace_back(ras[j], &bs[j]);
    terms.emplace_back(neg_sum_alpha, &pvk.beta_g2);
    terms.emplace_back(acc_pi, &pvk.neg_gamma_g2);
    terms.emplace_back(acc_c, &pvk.neg_delta_g2);
    return ec::pairing_product_is_one(terms);
}

}  // namespace cuzk::groth16
