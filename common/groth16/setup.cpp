#include "common/groth16/setup.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <chrono>
#include <stdexcept>
#include <vector>

#include "common/cs/counting_cs.hpp"
#include "common/msm/fixed_base.hpp"
#include "common/groth16/keypair_assembly.hpp"
#include "common/ntt/domain.hpp"
#include "common/ntt/ntt.hpp"

namespace cuzk::groth16 {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// x_i = base^(start + i) for i < out.size(), in parallel chunks that each start with one pow.
void fill_powers(const ff::fr_t& base, std::vector<ff::fr_t>& out) {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, out.size(), 1 << 14), [&](const tbb::blocked_range<size_t>& r) {
        ff::fr_t x = base.pow(uint64_t(r.begin()));
        for (size_t i = r.begin(); i < r.end(); ++i) {
            out[i] = x;
            x *= base;
        }
    });
}

// Keeps the non-zero scalars (the identity points bellperson filters out), in order.
std::vector<ff::fr_t> non_zero(const std::vector<ff::fr_t>& inputs, const std::vector<ff::fr_t>& aux) {
    std::vector<ff::fr_t> out;
    out.reserve(inputs.size() + aux.size());
    for (const auto& x : inputs)
        if (!x.is_zero()) out.push_back(x);
    for (const auto& x : aux)
        if (!x.is_zero()) out.push_back(x);
    return out;
}

// (beta u + alpha v + w) * inv for every variable of |q|.
std::vector<ff::fr_t> ext_scalars(const qap_columns& q, const ff::fr_t& alpha, const ff::fr_t& beta,
                                  const ff::fr_t& inv) {
    std::vector<ff::fr_t> out(q.size());
    tbb::parallel_for(tbb::blocked_range<size_t>(0, q.size(), 1 << 12), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) out[i] = (beta * q.at[i] + alpha * q.bt[i] + q.ct[i]) * inv;
    });
    return out;
}

template <class F>
std::vector<ec::affine_t<F>> mul_all(const msm::fixed_base_table<F>& table, const std::vector<ff::fr_t>& scalars) {
    std::vector<ec::affine_t<F>> out(scalars.size());
    table.mul_batch(scalars.data(), out.data(), scalars.size());
    return out;
}

template <class F>
ec::affine_t<F> mul_one(const ec::affine_t<F>& base, const ff::fr_t& k) {
    return ec::jacobian_t<F>::from_affine(base).mul(k).to_affine();
}

}  // namespace

std::string setup_timings::to_string() const {
    return fmt::format(
        "count {:.3f}s, lagrange {:.3f}s, synthesis {:.3f}s, tables {:.3f}s, h {:.3f}s, ic+l {:.3f}s, a {:.3f}s, "
        "b_g1 {:.3f}s, b_g2 {:.3f}s, total {:.3f}s",
        count_s, lagrange_s, synthesis_s, tables_s, h_s, ic_l_s, a_s, b_g1_s, b_g2_s, total_s);
}

setup_result generate_random_parameters(const synthesize_fn& synth, rng_fn rng) {
    const auto t_start = clock_type::now();
    setup_result res;
    setup_timings& tm = res.timings;
    spdlog::warn("groth16 setup: parameters from random toxic waste, fit for tests and benchmarks only");

    // Pass 1: sizes.
    auto t0 = clock_type::now();
    cs::counting_cs counter;
    synth(counter);
    const size_t rows = size_t(counter.num_constraints() + counter.num_inputs());
    unsigned log_m = 0;
    while ((size_t(1) << log_m) < rows) ++log_m;
    if (log_m > ff::FR_TWO_ADICITY)
        throw std::length_error(fmt::format("setup: {} rows need a domain of 2^{}, beyond Fr's 2^{}", rows, log_m,
                                            ff::FR_TWO_ADICITY));
    const size_t m = size_t(1) << log_m;
    res.num_constraints = size_t(counter.num_constraints());
    res.num_inputs = size_t(counter.num_inputs());
    res.num_aux = size_t(counter.num_aux());
    res.log_domain = log_m;
    tm.count_s = seconds_since(t0);

    // Toxic waste. tau must not be a domain point (Z(tau) = 0 would zero every h).
    const ff::fr_t alpha = random_nonzero_fr(rng), beta = random_nonzero_fr(rng);
    const ff::fr_t gamma = random_nonzero_fr(rng), delta = random_nonzero_fr(rng);
    ff::fr_t tau, z_tau;
    do {
        tau = random_nonzero_fr(rng);
        z_tau = tau.pow(uint64_t(m)) - ff::fr_t::one();
    } while (z_tau.is_zero());
    const ff::fr_t gamma_inv = gamma.inverse(), delta_inv = delta.inverse();

    // Powers of tau, then Lagrange coefficients L_i(tau) = (1/m) sum_j tau^j omega^(-ij): the
    // inverse NTT of the powers.
    t0 = clock_type::now();
    std::vector<ff::fr_t> powers(m);
    fill_powers(tau, powers);
    std::vector<ff::fr_t> h_scalars(m - 1);
    const ff::fr_t z_over_delta = z_tau * delta_inv;
    tbb::parallel_for(tbb::blocked_range<size_t>(0, m - 1, 1 << 14), [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i < r.end(); ++i) h_scalars[i] = powers[i] * z_over_delta;
    });
    {
        ntt::domain d(log_m);
        ntt::inverse(d, powers);
    }
    const std::vector<ff::fr_t>& lagrange = powers;
    tm.lagrange_s = seconds_since(t0);

    // Pass 2: QAP columns at tau.
    t0 = clock_type::now();
    keypair_assembly ka(lagrange);
    synth(ka);
    ka.finish();
    if (ka.num_constraints() != rows || ka.num_inputs() != res.num_inputs || ka.num_aux() != res.num_aux)
        throw std::logic_error(fmt::format(
            "setup: synthesis is not deterministic: counting saw {} rows, {} inputs, {} aux; assembly saw {}, {}, {}",
            rows, res.num_inputs, res.num_aux, ka.num_constraints(), ka.num_inputs(), ka.num_aux()));
    std::vector<ff::fr_t>().swap(powers);
    tm.synthesis_s = seconds_since(t0);

    std::vector<ff::fr_t> ic_scalars = ext_scalars(ka.inputs(), alpha, beta, gamma_inv);
    std::vector<ff::fr_t> l_scalars = ext_scalars(ka.aux(), alpha, beta, delta_inv);
    for (size_t j = 0; j < l_scalars.size(); ++j)
        if (l_scalars[j].is_zero())
            throw std::invalid_argument(fmt::format(
                "setup: aux variable {} is unconstrained (it appears in no constraint), which Groth16 over "
                "bellperson's layout does not allow",
                j));
    std::vector<ff::fr_t> a_scalars = non_zero(ka.inputs().at, ka.aux().at);
    std::vector<ff::fr_t> b_scalars = non_zero(ka.inputs().bt, ka.aux().bt);

    t0 = clock_type::now();
    const size_t g1_count = h_scalars.size() + ic_scalars.size() + l_scalars.size() + a_scalars.size() + b_scalars.size();
    const ec::g1_affine_t g1 = ec::g1_generator();
    const ec::g2_affine_t g2 = ec::g2_generator();
    msm::fixed_base_table<ff::fp_t> g1_table(g1, msm::fixed_base_table<ff::fp_t>::window_for(g1_count));
    msm::fixed_base_table<ff::fp2_t> g2_table(g2, msm::fixed_base_table<ff::fp2_t>::window_for(b_scalars.size()));
    tm.tables_s = seconds_since(t0);

    parameters& p = res.params;
    t0 = clock_type::now();
    p.h = mul_all(g1_table, h_scalars);
    tm.h_s = seconds_since(t0);
    t0 = clock_type::now();
    p.vk.ic = mul_all(g1_table, ic_scalars);
    p.l = mul_all(g1_table, l_scalars);
    tm.ic_l_s = seconds_since(t0);
    t0 = clock_type::now();
    p.a = mul_all(g1_table, a_scalars);
    tm.a_s = seconds_since(t0);
    t0 = clock_type::now();
    p.b_g1 = mul_all(g1_table, b_scalars);
    tm.b_g1_s = seconds_since(t0);
    t0 = clock_type::now();
    p.b_g2 = mul_all(g2_table, b_scalars);
    tm.b_g2_s = seconds_since(t0);

    p.vk.alpha_g1 = mul_one(g1, alpha);
    p.vk.beta_g1 = mul_one(g1, beta);
    p.vk.beta_g2 = mul_one(g2, beta);
    p.vk.gamma_g2 = mul_one(g2, gamma);
    p.vk.delta_g1 = mul_one(g1, delta);
    p.vk.delta_g2 = mul_one(g2, delta);

    tm.total_s = seconds_since(t_start);
    spdlog::info("groth16 setup: {} constraints, {} inputs, {} aux, domain 2^{}; {}", res.num_constraints,
                 res.num_inputs, res.num_aux, log_m, tm.to_string());
    return res;
}

setup_result generate_random_parameters(const circuits::circuit& circuit, rng_fn rng) {
    return generate_random_parameters([&](cs::constraint_system& cs) { circuit.synthesize(cs); }, std::move(rng));
}

}  // namespace cuzk::groth16
