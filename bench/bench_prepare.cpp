// prepare's scalar gathering (groth16::prepare_partition_without_rows: the A scalars are the inputs and the
// aux variables of the A density, the B scalars those of the B densities), the part of gpud's prepare that
// scales with the partition and runs on the CPU while the other worker holds the CUDA lock. At the 32 GiB
// PoRep shape (130,169,893 aux variables; A taking every one and B about 44 M of them, as the partition
// benchmark assumed before the census of a real 32 GiB partition found A leaving 416,601 out and B 33.1 M): the serial loop it replaced (push_back into a reserved std::pmr::vector) against
// gather_dense into scalar_buffers, both into buffers reused from one iteration to the next, as gpud's pool
// reuses its page-locked ones; and B's alone, which is what gpud's prepare gathers where A uses every aux
// variable (A's then stay in the aux). Threads: TBB's default (every core this process may use).
//
//   bench_prepare [--benchmark_filter=32GiB]     (the 32 GiB shape takes ~10 GB of memory)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory_resource>
#include <random>
#include <vector>

#include "common/groth16/density_gather.hpp"
#include "common/groth16/scalar_buffer.hpp"

using namespace cuzk;
using namespace cuzk::groth16;

namespace {

constexpr size_t porep_32gib_aux = 130'169'893;
constexpr double porep_b_share = 44'000'000.0 / porep_32gib_aux;

struct shape {
    std::vector<ff::fr_t> aux;
    std::vector<uint64_t> a_words, b_words;
    density_view a, b;
    explicit shape(size_t n) : aux(n), a_words((n + 63) / 64, ~uint64_t(0)), b_words((n + 63) / 64, 0) {
        for (size_t i = 0; i < n; ++i) aux[i] = ff::fr_t::from_u64(i + 1);
        if (n % 64) a_words.back() = (uint64_t(1) << (n % 64)) - 1;
        std::mt19937_64 g(n);
        std::bernoulli_distribution bit(porep_b_share);
        for (size_t i = 0; i < n; ++i)
            if (bit(g)) b_words[i / 64] |= uint64_t(1) << (i % 64);
        a = {a_words, n};
        b = {b_words, n};
    }
};

const shape& shape_of(size_t n) {
    static std::unique_ptr<shape> s;
    if (!s || s->aux.size() != n) {
        s.reset();
        s = std::make_unique<shape>(n);
    }
    return *s;
}

void report(benchmark::State& state, const shape& s) {
    const double bytes = double(s.a.count() + s.b.count()) * sizeof(ff::fr_t);
    state.counters["scalars"] = double(s.a.count() + s.b.count());
    state.SetBytesProcessed(int64_t(bytes) * state.iterations());
}

void serial_loop(benchmark::State& state) {
    const shape& s = shape_of(size_t(state.range(0)));
    std::pmr::vector<ff::fr_t> a, b;
    for (auto _ : state) {
        a.clear();
        b.clear();
        a.reserve(s.a.count());
        for (size_t i = 0; i < s.aux.size(); ++i)
            if (s.a.test(i)) a.push_back(s.aux[i]);
        b.reserve(s.b.count());
        for (size_t i = 0; i < s.aux.size(); ++i)
            if (s.b.test(i)) b.push_back(s.aux[i]);
        benchmark::DoNotOptimize(a.data());
        benchmark::DoNotOptimize(b.data());
    }
    report(state, s);
}

void gather(benchmark::State& state) {
    const shape& s = shape_of(size_t(state.range(0)));
    scalar_buffer a, b;
    for (auto _ : state) {
        a.resize_for_overwrite(s.a.count());
        gather_dense(s.aux, s.a, a.data());
        b.resize_for_overwrite(s.b.count());
        gather_dense(s.aux, s.b, b.data());
        benchmark::DoNotOptimize(a.data());
        benchmark::DoNotOptimize(b.data());
    }
    report(state, s);
}

// gpud's prepare where A uses every aux variable (a_aux_storage::in_aux_when_dense): A's aux scalars stay in
// the aux, which the CUDA backend's L and A MSMs read; only B's are gathered.
void gather_a_in_aux(benchmark::State& state) {
    const shape& s = shape_of(size_t(state.range(0)));
    scalar_buffer b;
    for (auto _ : state) {
        b.resize_for_overwrite(s.b.count());
        gather_dense(s.aux, s.b, b.data());
        benchmark::DoNotOptimize(b.data());
    }
    state.counters["scalars"] = double(s.b.count());
    state.SetBytesProcessed(int64_t(double(s.b.count()) * sizeof(ff::fr_t)) * state.iterations());
}

}  // namespace

// Wall time throughout: gather_dense's work is on other threads than the one Google Benchmark times.
BENCHMARK(serial_loop)
    ->Name("prepare_scalars/serial_loop/2^20")
    ->Arg(1 << 20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(gather)->Name("prepare_scalars/gather_dense/2^20")->Arg(1 << 20)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(serial_loop)
    ->Name("prepare_scalars/serial_loop/32GiB")
    ->Arg(porep_32gib_aux)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();
BENCHMARK(gather)
    ->Name("prepare_scalars/gather_dense/32GiB")
    ->Arg(porep_32gib_aux)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

BENCHMARK(gather_a_in_aux)
    ->Name("prepare_scalars/gather_dense_a_in_aux/2^20")
    ->Arg(1 << 20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(gather_a_in_aux)
    ->Name("prepare_scalars/gather_dense_a_in_aux/32GiB")
    ->Arg(porep_32gib_aux)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3)
    ->UseRealTime();

BENCHMARK_MAIN();
