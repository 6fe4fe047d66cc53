#include "common/groth16/prover_stages.hpp"

#include <fmt/format.h>

#include <bit>
#include <chrono>
#include <memory>
#include <stdexcept>

#include "common/groth16/density_gather.hpp"
#include "common/msm/msm.hpp"
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

template <class F>
ec::jacobian_t<F> msm_over(const std::vector<ec::affine_t<F>>& bases, std::span<const ff::fr_t> scalars,
                           msm::msm_stats* stats = nullptr) {
    return msm::multi_exp<F>(std::span<const ec::affine_t<F>>(bases), scalars, stats);
}

density_view view_of(const density_bitmap& d) { return {std::span(d.words()), d.size()}; }

}  // namespace

size_t density_view::count() const {
    size_t n = 0;
    for (auto w : words) n += static_cast<size_t>(std::popcount(w));
    return n;
}

witness_view view_of(const proving_assignment& pa) {
    return {pa.a(), pa.b(), pa.c(), pa.inputs(), pa.aux(),
            view_of(pa.a_aux_density()), view_of(pa.b_input_density()), view_of(pa.b_aux_density())};
}

prepared_partition prepare_partition(const witness_view& w, const parameters& params, prove_timings* timings) {
    return prepare_partition(std::vector<ff::fr_t>(w.a.begin(), w.a.end()), std::vector<ff::fr_t>(w.b.begin(), w.b.end()),
                             std::vector<ff::fr_t>(w.c.begin(), w.c.end()), w, params, timings);
}

namespace {

// Size checks, log_m, aux and the A/B scalars: everything of prepare_partition but the rows, into |p|.
void prepare_without_rows(size_t rows, const witness_view& w, const parameters& params, prepared_partition& p,
                          a_aux_storage a_aux_to = a_aux_storage::gathered) {
    const size_t n_in = w.inputs.size(), n_aux = w.aux.size();
    // Each density against its variables (bit count, no bit beyond them), before counts are taken from it.
    check_density(w.a_aux_density, n_aux, "witness A aux");
    check_density(w.b_input_density, n_in, "witness B input");
    check_density(w.b_aux_density, n_aux, "witness B aux");
    while ((size_t(1) << p.log_m) < rows) ++p.log_m;
    const size_t m = size_t(1) << p.log_m;

    // The parameters must be for this circuit shape; each mismatch would silently give a bad proof.
    const size_t a_aux = w.a_aux_density.count();
    const size_t b_in = w.b_input_density.count(), b_aux = w.b_aux_density.count();
    expect_size("vk.ic", params.vk.ic.size(), n_in, "one per input, ONE included");
    expect_size("h", params.h.size(), m - 1, "domain size minus one");
    expect_size("l", params.l.size(), n_aux, "one per aux variable");
    expect_size("a", params.a.size(), n_in + a_aux, "every input and the aux variables used in A");
    expect_size("b_g1", params.b_g1.size(), b_in + b_aux, "inputs and aux variables used in B");
    expect_size("b_g2", params.b_g2.size(), b_in + b_aux, "inputs and aux variables used in B");

    p.aux = w.aux;
    // Scalars in the order of the filtered queries, gathered in parallel into buffers of their final size (a
    // pooled resource then reuses the same buffer every partition). Serial, this took 2.2 s at the
    // 32 GiB shape on the H200 machine (bench_prepare): longer than the other gpud worker's turn under the lock.
    p.a_aux_in_aux = a_aux_to == a_aux_storage::in_aux_when_dense && n_aux > 0 && a_aux == n_aux;
    p.a_scalars.resize_for_overwrite(n_in + (p.a_aux_in_aux ? 0 : a_aux));
    std::uninitialized_copy(w.inputs.begin(), w.inputs.end(), p.a_scalars.data());
    if (!p.a_aux_in_aux) gather_dense(w.aux, w.a_aux_density, p.a_scalars.data() + n_in);
    p.b_scalars.resize_for_overwrite(b_in + b_aux);
    gather_dense(w.inputs, w.b_input_density, p.b_scalars.data());
    gather_dense(w.aux, w.b_aux_density, p.b_scalars.data() + b_in);
}

}  // namespace

prepared_partition prepare_partition(std::vector<ff::fr_t>&& a, std::vector<ff::fr_t>&& b, std::vector<ff::fr_t>&& c,
                                     const witness_view& w, const parameters& params, prove_timings* timings) {
    const auto t0 = clock_type::now();
    const size_t rows = a.size();
    if (b.size() != rows || c.size() != rows)
        throw std::invalid_argument(fmt::format("witness rows disagree: a {}, b {}, c {}", rows, b.size(), c.size()));
    prepared_partition p;
    prepare_without_rows(rows, w, params, p);
    const size_t m = size_t(1) << p.log_m;
    p.h = std::move(a);
    p.b = std::move(b);
    p.c = std::move(c);
    p.h.resize(m);
    p.b.resize(m);
    p.c.resize(m);
    if (timings) timings->assemble_s += seconds_since(t0);
    return p;
}

prepared_partition prepare_partition_without_rows(const witness_view& w, const parameters& params,
                                                  prove_timings* timings) {
    prepared_partition p;
    prepare_partition_without_rows(w, params, p, timings);
    return p;
}

void prepare_partition_without_rows(const witness_view& w, const parameters& params, prepared_partition& p,
                                    prove_timings* timings, a_aux_storage a_aux) {
    const auto t0 = clock_type::now();
    const size_t rows = w.a.size();
    if (w.b.size() != rows || w.c.size() != rows)
        throw std::invalid_argument(
            fmt::format("witness rows disagree: a {}, b {}, c {}", rows, w.b.size(), w.c.size()));
    prepare_without_rows(rows, w, params, p, a_aux);
    if (timings) timings->assemble_s += seconds_since(t0);
}

kernel_results run_kernels(prepared_partition& p, const parameters& params, prove_timings* timings) {
    prove_timings local;
    prove_timings& tm = timings ? *timings : local;
    kernel_results k;

    // H = (a b - c) / Z in coefficients; the top one is zero and has no parameter point.
    auto t0 = clock_type::now();
    {
        ntt::domain d(p.log_m);
        ntt::compute_h(d, p.h, p.b, p.c);
    }
    std::vector<ff::fr_t>().swap(p.b);
    std::vector<ff::fr_t>().swap(p.c);
    p.h.resize(p.h.size() - 1);
    tm.h_ntt_s = seconds_since(t0);

    t0 = clock_type::now();
    k.h_acc = msm_over(params.h, p.h);
    std::vector<ff::fr_t>().swap(p.h);
    tm.h_msm_s = seconds_since(t0);

    t0 = clock_type::now();
    k.l_acc = msm_over(params.l, p.aux, &tm.l_stats);
    tm.l_msm_s = seconds_since(t0);
    t0 = clock_type::now();
    if (p.a_aux_in_aux) {
        // The inputs' points, then the aux variables' (every one of them), each with its scalars.
        const std::span<const ec::g1_affine_t> a(params.a);
        const size_t n_in = p.a_scalars.size();
        msm::msm_stats in_stats, aux_stats;
        k.a_acc = msm::multi_exp<ff::fp_t>(a.first(n_in), p.a_scalars, &in_stats) +
                  msm::multi_exp<ff::fp_t>(a.subspan(n_in), p.aux, &aux_stats);
        tm.a_stats = {in_stats.zeros + aux_stats.zeros, in_stats.ones + aux_stats.ones,
                      in_stats.others + aux_stats.others};
    } else {
        k.a_acc = msm_over(params.a, p.a_scalars, &tm.a_stats);
    }
    tm.a_msm_s = seconds_since(t0);
    t0 = clock_type::now();
    k.b1_acc = msm_over(params.b_g1, p.b_scalars, &tm.b_stats);
    tm.b_g1_msm_s = seconds_since(t0);
    return k;
}

proof finish_proof(const prepared_partition& p, const kernel_results& k, const parameters& params, rng_fn& rng,
                   prove_timings* timings) {
    prove_timings local;
    prove_timings& tm = timings ? *timings : local;
    auto t0 = clock_type::now();
    const ec::g2_jacobian_t b2_acc = msm_over(params.b_g2, p.b_scalars);
    tm.b_g2_msm_s = seconds_since(t0);
    return blind_proof(k, b2_acc, params.vk, rng, timings);
}

proof blind_proof(const kernel_results& k, const ec::g2_jacobian_t& b2_acc, const verifying_key& vk, rng_fn& rng,
                  prove_timings* timings) {
    prove_timings local;
    prove_timings& tm = timings ? *timings : local;
    const auto t0 = clock_type::now();
    const ff::fr_t r = ff::fr_t::random(rng), s = ff::fr_t::random(rng);
    using g1j = ec::g1_jacobian_t;
    using g2j = ec::g2_jacobian_t;
    const g1j delta1 = g1j::from_affine(vk.delta_g1);
    const g1j a = g1j::from_affine(vk.alpha_g1) + k.a_acc + delta1.mul(r);
    const g2j b2 = g2j::from_affine(vk.beta_g2) + b2_acc + g2j::from_affine(vk.delta_g2).mul(s);
    const g1j b1 = g1j::from_affine(vk.beta_g1) + k.b1_acc + delta1.mul(s);
    const g1j cc = a.mul(s) + b1.mul(r) - delta1.mul(r * s) + k.h_acc + k.l_acc;
    proof pi{a.to_affine(), b2.to_affine(), cc.to_affine()};
    tm.assemble_s += seconds_since(t0);
    return pi;
}

}  // namespace cuzk::groth16
