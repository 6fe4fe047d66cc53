// What the PoSt and SnapDeals branches of `cuzk circuit-info` report alike: the counts of one blank (counting)
// synthesis, the domain and matrix size they give, the stem of the published parameters, the synthesis
// time, and optionally the time of a synthesis with a witness. Each branch adds its proof's own fields between
// count_fields and print_report.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>

#include "common/circuits/circuit.hpp"
#include "common/cs/counting_cs.hpp"

namespace cuzk::cli {

// Seconds since |t0|, to the millisecond.
double seconds_since(std::chrono::steady_clock::time_point t0);

// constraints, constraints_with_input_rows, inputs (ONE included), aux.
void count_fields(nlohmann::ordered_json& out, const cs::counting_cs& counter);

// domain_size, matrix_terms, official_params, synthesis_seconds, then, when |synthesize_with_witness| is given,
// witness_synthesis_seconds and witness_constraints_per_second of one call of it on a counting system that
// computes values, and the note; printed to stdout. Returns the exit code.
int print_report(nlohmann::ordered_json& out, const cs::counting_cs& counter, const std::string& official_params,
                 double synthesis_seconds, const std::function<void(cs::counting_cs&)>& synthesize_with_witness);

// --scalar-census: |circuit| (one partition with its witness and public inputs) synthesized as synthd
// synthesizes it, into a proving assignment (~17 GB at 32 GiB), then its L, A and B scalars counted by class
// (zero, one, small, other: groth16/scalar_census.hpp). The JSON cuzk_bench_gpu --census reads.
nlohmann::ordered_json scalar_census_report(const circuits::circuit& circuit, unsigned partition);

}  // namespace cuzk::cli
