// NTT throughput over Fr: the transforms of the Groth16 H computation, and compute_h itself
// (six transforms' worth of work).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "common/ntt/ntt.hpp"

namespace {

using namespace cuzk::ntt;
using cuzk::ff::fr_t;

std::vector<fr_t> random_vec(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<fr_t> v(n);
    for (auto& x : v) x = fr_t::random(rng);
    return v;
}

template <void (*Fn)(const domain&, std::span<fr_t>)>
void bm_transform(benchmark::State& state) {
    domain d(unsigned(state.range(0)));
    auto x = random_vec(d.size(), 1);
    for (auto _ : state) {
        Fn(d, x);
        benchmark::DoNotOptimize(x.data());
    }
    state.counters["elements_per_s"] =
        benchmark::Counter(double(state.iterations()) * double(d.size()), benchmark::Counter::kIsRate);
}

void bm_compute_h(benchmark::State& state) {
    domain d(unsigned(state.range(0)));
    auto a0 = random_vec(d.size(), 2), b0 = random_vec(d.size(), 3), c0 = random_vec(d.size(), 4);
    for (auto _ : state) {
        state.PauseTiming();
        auto a = a0, b = b0, c = c0;
        state.ResumeTiming();
        compute_h(d, a, b, c);
        benchmark::DoNotOptimize(a.data());
    }
    state.counters["elements_per_s"] =
        benchmark::Counter(double(state.iterations()) * double(d.size()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(bm_transform<forward>)->Name("ntt_forward/log_n")->Arg(16)->Arg(20)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(bm_transform<inverse>)->Name("ntt_inverse/log_n")->Arg(20)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(bm_transform<coset_forward>)->Name("ntt_coset_forward/log_n")->Arg(20)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(bm_compute_h)->Name("ntt_compute_h/log_n")->Arg(20)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();

BENCHMARK_MAIN();
