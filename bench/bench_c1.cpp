// C1 input handling at the 32 GiB shape: 10 partitions x 18 challenges, 11 layers, trees C/R of 8
// sub-trees with base arity 8, tree D of 2^30 leaves. The document is synthetic
// (tests/support/synthetic_c1.hpp: consistent roots and column hashes, random paths) and written by
// write_c1_json in serde's form, so its size and structure are those of a real 32 GiB C1.
#include <benchmark/benchmark.h>

#include <string>

#include "common/c1/seal_commit_phase1.hpp"
#include "tests/support/synthetic_c1.hpp"

namespace {

const std::string& c1_32gib_json() {
    static const std::string json = [] {
        cuzk::test::synthetic_c1 gen(32, cuzk::test::c1_shape::porep_32gib());
        return cuzk::c1::write_c1_json(gen.make(10, 18));
    }();
    return json;
}

void bm_parse_c1_32gib(benchmark::State& state) {
    const std::string& json = c1_32gib_json();
    for (auto _ : state) {
        auto c1 = cuzk::c1::parse_c1_json(json);
        benchmark::DoNotOptimize(c1.partitions.data());
    }
    state.counters["json_MB"] = double(json.size()) / 1e6;
    state.counters["MB_per_s"] =
        benchmark::Counter(double(state.iterations()) * double(json.size()) / 1e6, benchmark::Counter::kIsRate);
}
BENCHMARK(bm_parse_c1_32gib)->Unit(benchmark::kMillisecond)->UseRealTime();

// Roots, comm_r and the Poseidon hash of each of the 2,700 columns (11 rows each).
void bm_check_c1_32gib(benchmark::State& state) {
    auto c1 = cuzk::c1::parse_c1_json(c1_32gib_json());
    for (auto _ : state) cuzk::c1::check_consistency(c1);
}
BENCHMARK(bm_check_c1_32gib)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
