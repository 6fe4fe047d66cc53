// Pairing costs on the CPU: the pieces of one pairing, and the 3-pair product that Groth16
// verification computes (one multi Miller loop and one final exponentiation).
#include <benchmark/benchmark.h>

#include <random>
#include <utility>
#include <vector>

#include "common/ec/jacobian.hpp"
#include "common/ec/pairing.hpp"

using namespace cuzk::ec;
using cuzk::ff::fp12_t;

namespace {

g1_affine_t random_g1(std::mt19937_64& rng) {
    return g1_jacobian_t::from_affine(g1_generator()).mul(fr_t::random(rng)).to_affine();
}
g2_affine_t random_g2(std::mt19937_64& rng) {
    return g2_jacobian_t::from_affine(g2_generator()).mul(fr_t::random(rng)).to_affine();
}

void BM_PrepareG2(benchmark::State& state) {
    std::mt19937_64 rng(1);
    g2_affine_t q = random_g2(rng);
    for (auto _ : state) benchmark::DoNotOptimize(prepare_g2(q));
}
BENCHMARK(BM_PrepareG2)->Unit(benchmark::kMicrosecond);

void BM_MillerLoop(benchmark::State& state) {
    std::mt19937_64 rng(2);
    g1_affine_t p = random_g1(rng);
    g2_prepared q = prepare_g2(random_g2(rng));
    for (auto _ : state) benchmark::DoNotOptimize(miller_loop(p, q));
}
BENCHMARK(BM_MillerLoop)->Unit(benchmark::kMicrosecond);

void BM_FinalExponentiation(benchmark::State& state) {
    std::mt19937_64 rng(3);
    g1_affine_t p = random_g1(rng);
    fp12_t f = miller_loop(p, prepare_g2(random_g2(rng)));
    for (auto _ : state) benchmark::DoNotOptimize(final_exponentiation(f));
}
BENCHMARK(BM_FinalExponentiation)->Unit(benchmark::kMicrosecond);

// A whole pairing from affine inputs, G2 preparation included.
void BM_Pairing(benchmark::State& state) {
    std::mt19937_64 rng(4);
    g1_affine_t p = random_g1(rng);
    g2_affine_t q = random_g2(rng);
    for (auto _ : state) benchmark::DoNotOptimize(pairing(p, q));
}
BENCHMARK(BM_Pairing)->Unit(benchmark::kMicrosecond);

// Groth16 verification: e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) with e(alpha, beta) cached
// as an Fp12 value, i.e. three Miller loops against prepared G2 points (B is prepared per proof and
// is counted here; gamma and delta are prepared once per key).
void BM_PairingProduct3(benchmark::State& state) {
    std::mt19937_64 rng(5);
    g2_prepared gamma = prepare_g2(random_g2(rng)), delta = prepare_g2(random_g2(rng));
    g1_affine_t a = random_g1(rng), l = random_g1(rng), c = random_g1(rng);
    g2_affine_t b = random_g2(rng);
    for (auto _ : state) {
        g2_prepared bp = prepare_g2(b);
        std::pair<g1_affine_t, const g2_prepared*> terms[3] = {{a, &bp}, {l, &gamma}, {c, &delta}};
        benchmark::DoNotOptimize(pairing_product_is_one(terms));
    }
}
BENCHMARK(BM_PairingProduct3)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
