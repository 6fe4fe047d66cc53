// Field arithmetic throughput: the unit cost every MSM and NTT figure is built from.
#include <benchmark/benchmark.h>

#include <random>

#include "common/ec/jacobian.hpp"
#include "common/ec/xyzz.hpp"
#include "common/ff/bls12_381.hpp"
#include "common/msm/affine_batch_add.hpp"

namespace {

using cuzk::ff::fp_t;
using cuzk::ff::fr_t;

// A dependent chain (x = x * y) measures latency, which is what the point formulas see: most of
// their multiplications depend on the previous one.
template <class F>
void bm_mul_chain(benchmark::State& state) {
    std::mt19937_64 rng(1);
    F x = F::random(rng), y = F::random(rng);
    for (auto _ : state) {
        for (int i = 0; i < 1000; ++i) x *= y;
        benchmark::DoNotOptimize(x);
    }
    state.SetItemsProcessed(state.iterations() * 1000);
    state.counters["mul_per_s"] = benchmark::Counter(double(state.iterations()) * 1000, benchmark::Counter::kIsRate);
}

// Eight independent chains measure throughput (the out-of-order core overlaps them).
template <class F>
void bm_mul_independent(benchmark::State& state) {
    std::mt19937_64 rng(2);
    F x[8], y = F::random(rng);
    for (auto& v : x) v = F::random(rng);
    for (auto _ : state) {
        for (int i = 0; i < 125; ++i)
            for (auto& v : x) v *= y;
        benchmark::DoNotOptimize(x);
    }
    state.SetItemsProcessed(state.iterations() * 1000);
    state.counters["mul_per_s"] = benchmark::Counter(double(state.iterations()) * 1000, benchmark::Counter::kIsRate);
}

template <class F>
void bm_sqr_chain(benchmark::State& state) {
    std::mt19937_64 rng(3);
    F x = F::random(rng);
    for (auto _ : state) {
        for (int i = 0; i < 1000; ++i) x = x.sqr();
        benchmark::DoNotOptimize(x);
    }
    state.counters["sqr_per_s"] = benchmark::Counter(double(state.iterations()) * 1000, benchmark::Counter::kIsRate);
}

template <class F>
void bm_add_chain(benchmark::State& state) {
    std::mt19937_64 rng(4);
    F x = F::random(rng), y = F::random(rng);
    for (auto _ : state) {
        for (int i = 0; i < 1000; ++i) x += y;
        benchmark::DoNotOptimize(x);
    }
    state.counters["add_per_s"] = benchmark::Counter(double(state.iterations()) * 1000, benchmark::Counter::kIsRate);
}

void bm_fp_inverse(benchmark::State& state) {
    std::mt19937_64 rng(5);
    fp_t x = fp_t::random(rng);
    for (auto _ : state) {
        x = x.inverse() + fp_t::one();
        benchmark::DoNotOptimize(x);
    }
    state.counters["inv_per_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}

// Points P, 2P, ..., a cheap stream of distinct affine points.
std::vector<cuzk::ec::g1_affine_t> g1_points(size_t n) {
    using namespace cuzk::ec;
    std::vector<g1_jacobian_t> jac(n);
    g1_jacobian_t acc = g1_jacobian_t::from_affine(g1_generator());
    for (size_t i = 0; i < n; ++i) {
        jac[i] = acc;
        acc = acc.add_mixed(g1_generator());
    }
    std::vector<g1_affine_t> out(n);
    batch_to_affine(jac.data(), out.data(), n);
    return out;
}

void bm_g1_add_mixed(benchmark::State& state) {
    using namespace cuzk::ec;
    auto pts = g1_points(1024);
    g1_jacobian_t acc = g1_jacobian_t::from_affine(pts[0]).dbl().dbl();
    for (auto _ : state) {
        for (size_t i = 0; i < pts.size(); ++i) acc = acc.add_mixed(pts[i]);
        benchmark::DoNotOptimize(acc);
    }
    state.counters["add_per_s"] = benchmark::Counter(double(state.iterations()) * 1024, benchmark::Counter::kIsRate);
}

void bm_g1_xyzz_accumulate(benchmark::State& state) {
    using namespace cuzk::ec;
    auto pts = g1_points(1024);
    xyzz_t<fp_t> acc;
    acc.accumulate(pts[0]);
    acc.accumulate(pts[0]);  // 2P, distinct from every point in the stream below until it wraps
    acc.accumulate(pts[0]);
    for (auto _ : state) {
        for (size_t i = 0; i < pts.size(); ++i) acc.accumulate(pts[i]);
        benchmark::DoNotOptimize(acc);
    }
    state.counters["add_per_s"] = benchmark::Counter(double(state.iterations()) * 1024, benchmark::Counter::kIsRate);
}

void bm_g1_xyzz_add(benchmark::State& state) {
    using namespace cuzk::ec;
    auto pts = g1_points(1024);
    std::vector<xyzz_t<fp_t>> q(1024);
    for (size_t i = 0; i < q.size(); ++i) {
        q[i].accumulate(pts[i]);
        q[i].accumulate(pts[(i * 7 + 3) % 1024]);
    }
    xyzz_t<fp_t> acc;
    acc.accumulate(pts[5]);
    acc.accumulate(pts[9]);
    for (auto _ : state) {
        for (size_t i = 0; i < q.size(); ++i) acc.add(q[i]);
        benchmark::DoNotOptimize(acc);
    }
    state.counters["add_per_s"] = benchmark::Counter(double(state.iterations()) * 1024, benchmark::Counter::kIsRate);
}

// Batched affine additions (one inversion per 1024 additions): the bucket update of the MSM.
void bm_g1_batch_affine_add(benchmark::State& state) {
    using namespace cuzk::ec;
    const size_t m = 1024;
    auto pts = g1_points(2 * m);
    std::vector<g1_affine_t> acc(pts.begin(), pts.begin() + m);
    std::vector<g1_affine_t*> ap(m);
    std::vector<const g1_affine_t*> bp(m);
    for (size_t i = 0; i < m; ++i) {
        ap[i] = &acc[i];
        bp[i] = &pts[m + i];
    }
    cuzk::msm::affine_batch_scratch<fp_t> scratch;
    for (auto _ : state) {
        cuzk::msm::batch_add_in_place(ap.data(), bp.data(), m, scratch);
        benchmark::DoNotOptimize(acc.data());
    }
    state.counters["add_per_s"] = benchmark::Counter(double(state.iterations()) * double(m), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(bm_mul_chain<fp_t>)->Name("fp_mul_latency");
BENCHMARK(bm_mul_independent<fp_t>)->Name("fp_mul_throughput");
BENCHMARK(bm_sqr_chain<fp_t>)->Name("fp_sqr");
BENCHMARK(bm_add_chain<fp_t>)->Name("fp_add");
BENCHMARK(bm_mul_chain<fr_t>)->Name("fr_mul_latency");
BENCHMARK(bm_mul_independent<fr_t>)->Name("fr_mul_throughput");
BENCHMARK(bm_add_chain<fr_t>)->Name("fr_add");
BENCHMARK(bm_fp_inverse)->Name("fp_inverse");
BENCHMARK(bm_g1_add_mixed)->Name("g1_jacobian_add_mixed");
BENCHMARK(bm_g1_xyzz_accumulate)->Name("g1_xyzz_accumulate_affine");
BENCHMARK(bm_g1_xyzz_add)->Name("g1_xyzz_add_xyzz");
BENCHMARK(bm_g1_batch_affine_add)->Name("g1_batch_affine_add");

BENCHMARK_MAIN();
