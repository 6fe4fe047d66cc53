#include "cli/circuit_info_report.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "cli/command.hpp"

namespace cuzk::cli {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::round(s * 1000) / 1000;
}

namespace {
uint64_t prover_rows(const cs::counting_cs& counter) { return counter.num_constraints() + counter.num_inputs(); }
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

}  // namespace cuzk::cli
