#include "common/groth16/prover.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <stdexcept>

#include "common/ec/jacobian.hpp"
#include "common/ntt/domain.hpp"
#include "common/ntt/ntt.hpp"

namespace cuzk::groth16 {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

void expect_size(const char* what, size_t have, size_t need, const char* why) {
    if (have != need)
        throw std::invalid_argument(fmt::format(
            "parameters do not fit the circuit: {} has {} points, the circuit needs {} ({})", what, have, need, why));
}

// Appends x[i] for every i whose density bit is set.
void append_dense(std::vector<ff::fr_t>& out, const std::vector<ff::fr_t>& x, const density_bitmap& density) {
    for (size_t i = 0; i < x.size(); ++i)
        if (density.test(i)) out.push_back(x[i]);
}

template <class F>
ec::jacobian_t<F> msm_over(const std::vector<ec::affine_t<F>>& bases, const std::vector<ff::fr_t>& scalars,
                           msm::msm_stats* stats = nullptr) {
    return msm::multi_exp<F>(std::span<const ec::affine_t<F>>(bases), std::span<const ff::fr_t>(scalars), stats);
}

}  // namespace

std::string prove_timings::to_string() const {
    return fmt::format(
        "synthesis {:.3f}s, h_ntt {:.3f}s, h_msm {:.3f}s, l_msm {:.3f}s, a_msm {:.3f}s, b_g1_msm {:.3f}s, "
        "b_g2_msm {:.3f}s, assemble {:.3f}s, total {:.3f}s",
        synthesis_s, h_ntt_s, h_msm_s, l_msm_s, a_msm_s, b_g1_msm_s, b_g2_msm_s, assemble_s, total_s);
}

proof create_proof(proving_assignment& pa, const parameters& params, rng_fn rng, prove_timings* timings) {
    prove_timings local;
    prove_timings& tm = timings ? *timings : local;
    const auto t_start = clock_type::now();
    if (!pa.finished()) pa.finish();

    const size_t rows = pa.num_constraints();
    const size_t n_in = pa.num_inputs(), n_aux = pa.num_aux();
    unsigned log_m = 0;
    while ((size_t(1) << log_m) < rows) ++log_m;
    const size_t m = size_t(1) << log_m;

    // The parameters must be for this circuit shape; each mismatch would silently give a bad proof.
    const size_t a_aux = pa.a_aux_density().count();
    const size_t b_in = pa.b_input_density().count(), b_aux = pa.b_aux_density().count();
    expect_size("vk.ic", params.vk.ic.size(), n_in, "one per input, ONE included");
    expect_size("h", params.h.size(), m - 1, "domain size minus one");
    expect_size("l", params.l.size(), n_aux, "one per aux variable");
    expect_size("a", params.a.size(), n_in + a_aux, "every input and the aux variables used in A");
    expect_size("b_g1", params.b_g1.size(), b_in + b_aux, "inputs and aux variables used in B");
    expect_size("b_g2", params.b_g2.size(), b_in + b_aux, "inputs and aux variables used in B");

    // H = (a b - c) / Z in coefficients; the top one is zero and has no parameter point.
    auto t0 = clock_type::now();
    std::vector<ff::fr_t> h = std::move(pa.a());
    std::vector<ff::fr_t> b = std::move(pa.b());
    std::vector<ff::fr_t> c = std::move(pa.c());
    pa.release_rows();
    h.resize(m);
    b.resize(m);
    c.resize(m);
    {
        ntt::domain d(log_m);
        ntt::compute_h(d, h, b, c);
    }
    std::vector<ff::fr_t>().swap(b);
    std::vector<ff::fr_t>().swap(c);
    h.resize(m - 1);
    tm.h_ntt_s = seconds_since(t0);

    t0 = clock_type::now();
    const ec::g1_jacobian_t h_acc = msm_over(params.h, h);
    std::vector<ff::fr_t>().swap(h);
    tm.h_msm_s = seconds_since(t0);

    t0 = clock_type::now();
    const ec::g1_jacobian_t l_acc = msm_over(params.l, pa.aux(), &tm.l_stats);
    tm.l_msm_s = seconds_since(t0);

    // Scalars in the order of the filtered queries.
    auto ta = clock_type::now();
    std::vector<ff::fr_t> a_scalars(pa.inputs());
    a_scalars.reserve(n_in + a_aux);
    append_dense(a_scalars, pa.aux(), pa.a_aux_density());
    std::vector<ff::fr_t> b_scalars;
    b_scalars.reserve(b_in + b_aux);
    append_dense(b_scalars, pa.inputs(), pa.b_input_density());
    append_dense(b_scalars, pa.aux(), pa.b_aux_density());
    double compaction_s = seconds_since(ta);

    t0 = clock_type::now();
    const ec::g1_jacobian_t a_acc = msm_over(params.a, a_scalars, &tm.a_stats);
    tm.a_msm_s = seconds_since(t0);
    t0 = clock_type::now();
    const ec::g1_jacobian_t b1_acc = msm_over(params.b_g1, b_scalars, &tm.b_stats);
    tm.b_g1_msm_s = seconds_since(t0);
    t0 = clock_type::now();
    const ec::g2_jacobian_t b2_acc = msm_over(params.b_g2, b_scalars);
    tm.b_g2_msm_s = seconds_since(t0);

    t0 = clock_type::now();
    const ff::fr_t r = ff::fr_t::random(rng), s = ff::fr_t::random(rng);
    const auto& vk = params.vk;
    using g1j = ec::g1_jacobian_t;
    using g2j = ec::g2_jacobian_t;
    const g1j delta1 = g1j::from_affine(vk.delta_g1);
    const g1j a = g1j::from_affine(vk.alpha_g1) + a_acc + delta1.mul(r);
    const g2j b2 = g2j::from_affine(vk.beta_g2) + b2_acc + g2j::from_affine(vk.delta_g2).mul(s);
    const g1j b1 = g1j::from_affine(vk.beta_g1) + b1_acc + delta1.mul(s);
    const g1j cc = a.mul(s) + b1.mul(r) - delta1.mul(r * s) + h_acc + l_acc;
    proof pi{a.to_affine(), b2.to_affine(), cc.to_affine()};
    tm.assemble_s = seconds_since(t0) + compaction_s;
    tm.total_s += seconds_since(t_start);
    return pi;
}

proof_result create_proof(const circuits::circuit& circuit, const parameters& params, rng_fn rng) {
    proof_result res;
    const auto t0 = clock_type::now();
    proving_assignment pa;
    circuit.synthesize(pa);
    pa.finish();
    res.timings.synthesis_s = seconds_since(t0);
    res.timings.total_s = res.timings.synthesis_s;
    res.public_inputs.assign(pa.inputs().begin() + 1, pa.inputs().end());
    res.pi = create_proof(pa, params, std::move(rng), &res.timings);
    spdlog::debug("groth16 prove {}: {}", circuit.name(), res.timings.to_string());
    return res;
}

}  // namespace cuzk::groth16
