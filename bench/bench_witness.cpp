// The compact witness (common/witness):
//   synthesis of a 2 KiB PoRep partition into a proving_assignment (rows evaluated, everything in full: what
//   synthd did) against a witness_assignment (witness only, aux compact), fresh per partition or reused with
//   clear() as a resident synthesis thread would; counting_cs with a witness is the floor (gadgets only);
//   expansion back to field elements (values/s), and the read() check, on the 2 KiB partition's aux and on
//   vectors of the 32 GiB partition's census (bench/gpu/porep_32GiB_census.json, "l": 130,169,893 aux values,
//   51.37 % zero, 47.32 % one, 1.31 % other) drawn at random, so the full values are spread evenly where a real
//   witness clusters them.
// Counters: kept_bytes is what the system holds after synthesis (proving_assignment: rows a, b, c, inputs and
// aux, 32 bytes each; witness_assignment: inputs in full and the aux serialized compactly).
// Threads: TBB's default for expansion (every core this process may use); synthesis is one thread. Times are
// wall-clock.
//
//   bench_witness [--benchmark_filter=32GiB]     (the 32 GiB shape expands into 4.2 GB)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "common/circuits/registry.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/witness/compact_vector_builder.hpp"
#include "common/witness/compact_vector_expansion.hpp"
#include "common/witness/compact_vector_serialization.hpp"
#include "common/witness/witness_assignment.hpp"

using namespace cuzk;

namespace {

constexpr std::uint64_t census_aux = 130'169'893;
constexpr std::uint64_t census_zero = 66'870'238, census_one = 61'600'553;

const circuits::circuit& porep_2kib() {
    static const auto c = circuits::make_circuit("porep:StackedDrg2KiBV1_1@bench-witness");
    return *c;
}

void set_rate(benchmark::State& state, double per_iteration, const char* name) {
    state.counters[name] = benchmark::Counter(per_iteration * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_porep_2KiB_proving_assignment(benchmark::State& state) {
    const auto& circuit = porep_2kib();
    std::uint64_t rows = 0, kept = 0;
    for (auto _ : state) {
        groth16::proving_assignment pa;
        circuit.synthesize(pa);
        pa.finish();
        rows = pa.num_circuit_constraints();
        kept = 32 * (3 * pa.num_constraints() + pa.num_inputs() + pa.num_aux());
    }
    state.counters["rows"] = double(rows);
    state.counters["kept_bytes"] = double(kept);
    set_rate(state, double(rows), "rows_per_s");
}

void report_witness(benchmark::State& state, const witness::witness_assignment& wa) {
    state.counters["rows"] = double(wa.num_circuit_constraints());
    state.counters["kept_bytes"] = double(32 * wa.num_inputs() + witness::serialized_bytes(wa.aux()));
    state.counters["full_aux"] = double(wa.aux().full.size());
    set_rate(state, double(wa.num_circuit_constraints()), "rows_per_s");
}

void BM_porep_2KiB_witness_assignment_fresh(benchmark::State& state) {
    const auto& circuit = porep_2kib();
    std::unique_ptr<witness::witness_assignment> wa;
    for (auto _ : state) {
        wa = std::make_unique<witness::witness_assignment>();
        circuit.synthesize(*wa);
    }
    report_witness(state, *wa);
}

void BM_porep_2KiB_witness_assignment_reused(benchmark::State& state) {
    const auto& circuit = porep_2kib();
    witness::witness_assignment wa;
    circuit.synthesize(wa);  // sizes the arrays
    for (auto _ : state) {
        wa.clear();
        circuit.synthesize(wa);
    }
    report_witness(state, wa);
}

void BM_porep_2KiB_counting_with_witness(benchmark::State& state) {
    const auto& circuit = porep_2kib();
    std::uint64_t rows = 0;
    for (auto _ : state) {
        cs::counting_cs c(true);
        circuit.synthesize(c);
        rows = c.num_constraints();
    }
    state.counters["rows"] = double(rows);
    set_rate(state, double(rows), "rows_per_s");
}

void expand(benchmark::State& state, const witness::compact_vector_view& v) {
    std::vector<ff::fr_t> out(v.size);
    witness::expand_into(v, out);  // faults the pages in before timing
    for (auto _ : state) {
        witness::expand_into(v, out);
        benchmark::ClobberMemory();
    }
    state.counters["values"] = double(v.size);
    state.counters["compact_bytes"] = double(witness::serialized_bytes(v));
    state.counters["full_bytes"] = double(32 * v.size);
    set_rate(state, double(v.size), "values_per_s");
    state.SetBytesProcessed(std::int64_t(32 * v.size) * std::int64_t(state.iterations()));
}

void BM_expand_porep_2KiB(benchmark::State& state) {
    static const auto wa = [] {
        auto w = std::make_unique<witness::witness_assignment>();
        porep_2kib().synthesize(*w);
        return w;
    }();
    expand(state, wa->aux());
}

// A vector of |n| values in the 32 GiB census' proportions.
const witness::compact_vector_builder& census_vector(std::uint64_t n) {
    static std::unique_ptr<witness::compact_vector_builder> b;
    if (!b || b->size() != n) {
        b = std::make_unique<witness::compact_vector_builder>();
        std::mt19937_64 rng(n);
        const std::uint64_t zero_below = std::uint64_t(double(census_zero) / census_aux * double(~std::uint64_t(0)));
        const std::uint64_t one_below =
            std::uint64_t(double(census_zero + census_one) / census_aux * double(~std::uint64_t(0)));
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint64_t r = rng();
            b->push_back(r < zero_below ? ff::fr_t::zero() : r < one_below ? ff::fr_t::one() : ff::fr_t::from_u64(r));
        }
    }
    return *b;
}

void BM_expand_census(benchmark::State& state) { expand(state, census_vector(std::uint64_t(state.range(0))).view()); }

// push_back alone on the census' mix: the builder's share of witness_assignment's synthesis.
void BM_build_census(benchmark::State& state) {
    const std::uint64_t n = std::uint64_t(state.range(0));
    std::vector<ff::fr_t> values(n);
    std::mt19937_64 rng(7);
    for (auto& v : values) {
        const std::uint64_t r = rng() % census_aux;
        v = r < census_zero ? ff::fr_t::zero() : r < census_zero + census_one ? ff::fr_t::one() : ff::fr_t::from_u64(r);
    }
    witness::compact_vector_builder b;
    for (auto _ : state) {
        b.clear();
        for (const auto& v : values) b.push_back(v);
        benchmark::DoNotOptimize(b.size());
    }
    set_rate(state, double(n), "values_per_s");
}

// write + read (read checks every block and full value), as the ring's two sides do.
void BM_write_read_census(benchmark::State& state) {
    const auto v = census_vector(std::uint64_t(state.range(0))).view();
    std::vector<std::uint64_t> words(witness::serialized_bytes(v) / 8);
    const std::span<std::byte> bytes(reinterpret_cast<std::byte*>(words.data()), words.size() * 8);
    for (auto _ : state) {
        witness::write(bytes, v);
        benchmark::DoNotOptimize(witness::read(bytes).size);
    }
    state.counters["compact_bytes"] = double(bytes.size());
    set_rate(state, double(v.size), "values_per_s");
}

}  // namespace

BENCHMARK(BM_porep_2KiB_proving_assignment)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_porep_2KiB_witness_assignment_fresh)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_porep_2KiB_witness_assignment_reused)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_porep_2KiB_counting_with_witness)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_expand_porep_2KiB)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_build_census)->Arg(1 << 24)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_expand_census)->Arg(1 << 24)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_write_read_census)->Arg(1 << 24)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_expand_census)->Name("BM_expand_census_32GiB")->Arg(census_aux)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_write_read_census)->Name("BM_write_read_census_32GiB")->Arg(census_aux)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
