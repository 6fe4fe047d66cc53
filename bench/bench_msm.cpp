// MSM throughput on the shapes the prover runs: dense random scalars (H, L queries) and the
// PoRep-like mix of 45% zeros, 45% ones and 10% random values (A, B queries over SHA-256 bits).
// Points are P, P + Q, P + 2Q, ... made with additions and one batch_to_affine: distinct and cheap.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "common/msm/msm.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::ec;
using cuzk::ff::fr_t;

template <class F>
const std::vector<affine_t<F>>& cached_points(const affine_t<F>& gen, size_t n) {
    static std::vector<affine_t<F>> pts;
    if (pts.size() >= n) return pts;
    std::mt19937_64 rng(42);
    jacobian_t<F> step = jacobian_t<F>::from_affine(gen).mul(fr_t::random(rng));
    std::vector<jacobian_t<F>> jac(n);
    jacobian_t<F> acc = jacobian_t<F>::from_affine(gen);
    for (size_t i = 0; i < n; ++i) {
        jac[i] = acc;
        acc = acc + step;
    }
    pts.resize(n);
    batch_to_affine(jac.data(), pts.data(), n);
    return pts;
}

std::vector<fr_t> scalars(size_t n, bool porep_like, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<fr_t> out(n);
    for (auto& s : out) {
        if (!porep_like) {
            s = fr_t::random(rng);
            continue;
        }
        uint64_t u = rng() % 100;
        s = u < 45 ? fr_t::zero() : u < 90 ? fr_t::one() : fr_t::random(rng);
    }
    return out;
}

template <class F>
void run_msm(benchmark::State& state, const affine_t<F>& gen, bool porep_like) {
    size_t n = size_t(1) << state.range(0);
    const auto& all = cached_points(gen, n);
    std::span<const affine_t<F>> pts(all.data(), n);
    auto sc = scalars(n, porep_like, 7 + n);
    msm::msm_stats st;
    for (auto _ : state) {
        auto r = msm::multi_exp<F>(pts, sc, &st);
        benchmark::DoNotOptimize(r);
    }
    auto plan = msm::plan_pippenger<F>(st.others);
    state.counters["points_per_s"] = benchmark::Counter(double(state.iterations()) * double(n), benchmark::Counter::kIsRate);
    state.counters["c"] = plan.c;
    state.counters["batched"] = plan.mode == msm::bucket_mode::batch_affine;
    state.counters["ones"] = double(st.ones);
    state.counters["others"] = double(st.others);
}

void bm_g1_random(benchmark::State& s) { run_msm(s, g1_generator(), false); }
void bm_g1_porep(benchmark::State& s) { run_msm(s, g1_generator(), true); }
void bm_g2_random(benchmark::State& s) { run_msm(s, g2_generator(), false); }

}  // namespace

BENCHMARK(bm_g1_random)->Name("g1_msm_random/log_n")->Arg(16)->Arg(18)->Arg(20)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(bm_g1_porep)->Name("g1_msm_porep_like/log_n")->Arg(16)->Arg(18)->Arg(20)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(bm_g2_random)->Name("g2_msm_random/log_n")->Arg(18)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

BENCHMARK_MAIN();
