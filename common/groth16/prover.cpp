#include "common/groth16/prover.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <stdexcept>

#include "common/groth16/prover_stages.hpp"

namespace cuzk::groth16 {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
    return std::chrono::duration<double>(clock_type::now() - t0).count();
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

    // The rows move into the prover (no copy) and are released from the assignment; the rest is borrowed.
    const witness_view w = view_of(pa);
    std::vector<ff::fr_t> a = std::move(pa.a()), b = std::move(pa.b()), c = std::move(pa.c());
    pa.release_rows();
    prepared_partition p = prepare_partition(std::move(a), std::move(b), std::move(c), w, params, &tm);
    const kernel_results k = run_kernels(p, params, &tm);
    proof pi = finish_proof(p, k, params, rng, &tm);
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
