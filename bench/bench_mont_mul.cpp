// Montgomery multiplication, portable CIOS (mont_field::mul_portable) against what operator*=
// dispatches to (the MULX/ADCX/ADOX assembly on ADX/BMI2 hosts), for Fp and Fr.
// "latency": one dependent chain x = x * y, the cost a point formula sees between dependent steps.
// "throughput": eight independent chains, what the out-of-order core sustains when work overlaps.
// Time per multiplication is the reported time divided by kOpsPerIteration (items_per_second is
// the rate directly).
#include <benchmark/benchmark.h>

#include <random>

#include "common/ff/bls12_381.hpp"

namespace {

using cuzk::ff::fp_t;
using cuzk::ff::fr_t;

constexpr int kOpsPerIteration = 1024;

enum class impl { portable, dispatched, square };

template <class F, impl I>
inline F step(const F& x, const F& y) {
    if constexpr (I == impl::portable) return F::mul_portable(x, y);
    else if constexpr (I == impl::square) return x.sqr();
    else return x * y;
}

template <class F, impl I>
void bm_latency(benchmark::State& state) {
    std::mt19937_64 rng(1);
    F x = F::random(rng), y = F::random(rng);
    for (auto _ : state) {
        for (int i = 0; i < kOpsPerIteration; ++i) x = step<F, I>(x, y);
        benchmark::DoNotOptimize(x);
    }
    state.SetItemsProcessed(state.iterations() * kOpsPerIteration);
}

template <class F, impl I>
void bm_throughput(benchmark::State& state) {
    constexpr int kChains = 8;
    std::mt19937_64 rng(2);
    F x[kChains], y = F::random(rng);
    for (auto& v : x) v = F::random(rng);
    for (auto _ : state) {
        for (int i = 0; i < kOpsPerIteration / kChains; ++i)
            for (auto& v : x) v = step<F, I>(v, y);
        benchmark::DoNotOptimize(x);
    }
    state.SetItemsProcessed(state.iterations() * kOpsPerIteration);
}

}  // namespace

BENCHMARK(bm_latency<fp_t, impl::portable>)->Name("fp_mul_latency/portable");
BENCHMARK(bm_latency<fp_t, impl::dispatched>)->Name("fp_mul_latency/dispatched");
BENCHMARK(bm_latency<fp_t, impl::square>)->Name("fp_sqr_latency/dispatched");
BENCHMARK(bm_throughput<fp_t, impl::portable>)->Name("fp_mul_throughput/portable");
BENCHMARK(bm_throughput<fp_t, impl::dispatched>)->Name("fp_mul_throughput/dispatched");
BENCHMARK(bm_throughput<fp_t, impl::square>)->Name("fp_sqr_throughput/dispatched");
BENCHMARK(bm_latency<fr_t, impl::portable>)->Name("fr_mul_latency/portable");
BENCHMARK(bm_latency<fr_t, impl::dispatched>)->Name("fr_mul_latency/dispatched");
BENCHMARK(bm_latency<fr_t, impl::square>)->Name("fr_sqr_latency/dispatched");
BENCHMARK(bm_throughput<fr_t, impl::portable>)->Name("fr_mul_throughput/portable");
BENCHMARK(bm_throughput<fr_t, impl::dispatched>)->Name("fr_mul_throughput/dispatched");
BENCHMARK(bm_throughput<fr_t, impl::square>)->Name("fr_sqr_throughput/dispatched");

BENCHMARK_MAIN();
