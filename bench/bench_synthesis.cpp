// Synthesis rate of the built-in SHA256 chain (sha256:64, about 1.7M constraints) in three modes:
//   counting        - no witness: the cost of building the R1CS rows alone (setup-like);
//   witness         - witness values computed by the gadgets, dropped by the CS;
//   witness_eval    - a prover-like CS that keeps the aux assignment and evaluates <a,w>, <b,w>,
//                     <c,w> for every constraint (what the Groth16 prover consumes), into buffers
//                     reused across iterations as a resident prover would (no page faults timed).
// The rate counter is constraints per second of one thread.
#include <benchmark/benchmark.h>

#include <vector>

#include "common/circuits/registry.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/cs/test_cs.hpp"

using namespace cuzk;

namespace {

class evaluating_cs final : public cs::constraint_system {
public:
    evaluating_cs() { reset(); }
    // Empties the assignment and evaluations, keeping their storage.
    void reset() {
        inputs_.assign(1, cs::FR_ONE);
        aux_.clear();
        a_.clear();
        b_.clear();
        c_.clear();
    }
    cs::variable alloc(const ff::fr_t& v) override {
        aux_.push_back(v);
        return cs::variable::aux(uint32_t(aux_.size() - 1));
    }
    cs::variable alloc_input(const ff::fr_t& v) override {
        inputs_.push_back(v);
        return cs::variable::input(uint32_t(inputs_.size() - 1));
    }
    void enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                 const cs::linear_combination& c) override {
        a_.push_back(a.evaluate(inputs_, aux_));
        b_.push_back(b.evaluate(inputs_, aux_));
        c_.push_back(c.evaluate(inputs_, aux_));
    }
    bool has_witness() const override { return true; }
    size_t num_constraints() const { return a_.size(); }

private:
    std::vector<ff::fr_t> inputs_, aux_, a_, b_, c_;
};

template <class Cs, class... Args>
void synthesize(benchmark::State& state, const char* spec, Args... args) {
    auto circuit = circuits::make_circuit(spec);
    uint64_t constraints = 0;
    for (auto _ : state) {
        Cs cs(args...);
        circuit->synthesize(cs);
        constraints = cs.num_constraints();
        benchmark::DoNotOptimize(constraints);
    }
    state.counters["constraints"] = double(constraints);
    state.counters["constraints_per_s"] =
        benchmark::Counter(double(constraints) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_sha256_64_counting(benchmark::State& s) { synthesize<cs::counting_cs>(s, "sha256:64", false); }
void BM_sha256_64_witness(benchmark::State& s) { synthesize<cs::counting_cs>(s, "sha256:64", true); }
void BM_sha256_64_witness_eval(benchmark::State& state) {
    auto circuit = circuits::make_circuit("sha256:64");
    evaluating_cs cs;
    circuit->synthesize(cs);  // warm-up: sizes the buffers
    for (auto _ : state) {
        cs.reset();
        circuit->synthesize(cs);
    }
    double constraints = double(cs.num_constraints());
    state.counters["constraints"] = constraints;
    state.counters["constraints_per_s"] =
        benchmark::Counter(constraints * double(state.iterations()), benchmark::Counter::kIsRate);
}
void BM_sha256_4_test_cs(benchmark::State& s) { synthesize<cs::test_cs>(s, "sha256:4"); }

}  // namespace

BENCHMARK(BM_sha256_64_counting)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sha256_64_witness)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sha256_64_witness_eval)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sha256_4_test_cs)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
