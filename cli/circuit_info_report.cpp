#include "cli/circuit_info_report.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "cli/command.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/scalar_census.hpp"

namespace cuzk::cli {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::round(s * 1000) / 1000;
}

namespace {
uint64_t prover_rows(const cs::counting_cs& counter) { return counter.num_constraints() + counter.num_inputs(); }

// |x| to |decimals| places, as the nearest double to that decimal (JSON then prints it short: 51.37).
double rounded(double x, int decimals) {
    const double scale = std::pow(10.0, decimals);
    return std::round(x * scale) / scale;
}

nlohmann::ordered_json classes_json(const groth16::scalar_classes& c) {
    const double n = double(c.total());
    auto pct = [n](uint64_t k) { return n == 0 ? 0.0 : rounded(100.0 * double(k) / n, 2); };
    nlohmann::ordered_json j;
    j["scalars"] = c.total();
    j["zero"] = c.zero;
    j["one"] = c.one;
    j["small"] = c.small;
    j["other"] = c.other;
    j["percent"] = {{"zero", pct(c.zero)}, {"one", pct(c.one)}, {"small", pct(c.small)}, {"other", pct(c.other)}};
    return j;
}

}  // namespace

void count_fields(nlohmann::ordered_json& out, const cs::counting_cs& counter) {
    out["constraints"] = counter.num_constraints();
    out["constraints_with_input_rows"] = prover_rows(counter);
    out["inputs"] = counter.num_inputs();
    out["aux"] = counter.num_aux();
}

int print_report(nlohmann::ordered_json& out, const cs::counting_cs& counter, const std::string& official_params,
                 double synthesis_seconds, const std::function<void(cs::counting_cs&)>& synthesize_with_witness) {
    out["domain_size"] = std::bit_ceil(prover_rows(counter));
    out["matrix_terms"] = counter.num_terms();
    out["official_params"] = official_params;
    out["synthesis_seconds"] = synthesis_seconds;
    if (synthesize_with_witness) {
        const auto t1 = std::chrono::steady_clock::now();
        cs::counting_cs timed(true);
        synthesize_with_witness(timed);
        const double ws = seconds_since(t1);
        out["witness_synthesis_seconds"] = ws;
        out["witness_constraints_per_second"] = uint64_t(double(timed.num_constraints()) / std::max(ws, 1e-3));
    }
    out["note"] =
        "constraints: enforced by the circuit (no input rows); constraints_with_input_rows: plus one "
        "'input * 0 = 0' row per public input (ONE included) as bellperson's prover adds; inputs include ONE; "
        "official_params: the published .params/.vk stem";
    std::printf("%s\n", out.dump(2).c_str());
    return exit_ok;
}

nlohmann::ordered_json scalar_census_report(const circuits::circuit& circuit, unsigned partition) {
    const auto t0 = std::chrono::steady_clock::now();
    groth16::proving_assignment pa;
    circuit.synthesize(pa);
    pa.finish();
    const double synth_s = seconds_since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    const groth16::partition_census c = groth16::census_of(groth16::view_of(pa));
    const double count_s = seconds_since(t1);
    nlohmann::ordered_json j;
    j["partition"] = partition;
    j["rows"] = pa.num_constraints();
    j["l"] = classes_json(c.l);
    j["a"] = classes_json(c.a);
    j["b"] = classes_json(c.b);
    j["synthesis_seconds"] = synth_s;
    j["census_seconds"] = count_s;
    j["note"] =
        "l: every aux variable; a: the inputs and the aux variables in A; b: those in B (B_G1 and B_G2). "
        "small: neither 0 nor 1, below 2^64; other: the rest. H's scalars (quotient coefficients) not counted";
    return j;
}

}  // namespace cuzk::cli
