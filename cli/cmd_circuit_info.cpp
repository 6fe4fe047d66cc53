// cuzk circuit-info --registered-proof NAME: the size of one PoRep partition circuit, synthesized
// blank into a counting constraint system (no witness, nothing stored: seconds and a few MB even
// for 32 GiB), printed as JSON. "constraints" is what the circuit enforces (rust-fil-proofs'
// circuitinfo figure); "constraints_with_input_rows" adds the row bellperson's prover appends per
// public input, ONE included, which is the number of rows the FFT domain must hold.
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/stacked_circuit.hpp"

namespace cuzk::cli {

namespace {

int run_circuit_info(const std::string& name) {
    const porep::registered_proof& proof = porep::registered_proof_by_name(name);
    const auto shape = porep::stacked_circuit_shape::of(proof);
    auto start = std::chrono::steady_clock::now();
    cs::counting_cs counter;
    porep::synthesize_stacked_partition(counter, shape, nullptr);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const uint64_t rows = counter.num_constraints() + counter.num_inputs();
    nlohmann::ordered_json out;
    out["registered_proof"] = std::string(proof.name);
    out["constraints"] = counter.num_constraints();
    out["constraints_with_input_rows"] = rows;
    out["inputs"] = counter.num_inputs();
    out["aux"] = counter.num_aux();
    out["partitions"] = proof.partitions;
    out["challenges_per_partition"] = proof.challenges_per_partition;
    out["layers"] = proof.layers;
    out["sector_size"] = proof.sector_size;
    out["nodes"] = proof.nodes;
    out["tree_shape"] = {proof.tree.base, proof.tree.sub, proof.tree.top};
    out["api_version"] = proof.version == graph::api_version::v1_0 ? "1.0.0" : "1.1.0";
    out["domain_size"] = std::bit_ceil(rows);
    out["matrix_terms"] = counter.num_terms();
    out["synthesis_seconds"] = std::round(seconds * 1000) / 1000;
    out["note"] =
        "constraints: enforced by the circuit (no input rows); constraints_with_input_rows: plus one "
        "'input * 0 = 0' row per public input (ONE included) as bellperson's prover adds; inputs include ONE";
    std::printf("%s\n", out.dump(2).c_str());
    return exit_ok;
}

}  // namespace

void add_circuit_info_command(CLI::App& app, action& run) {
    auto* cmd = app.add_subcommand("circuit-info", "Size of one PoRep partition circuit (JSON)");
    auto name = std::make_shared<std::string>();
    cmd->add_option("--registered-proof", *name, "e.g. StackedDrg32GiBV1_1 (" + porep::registered_proof_names() + ")")
        ->required();
    cmd->callback([&run, name] { run = [name] { return run_circuit_info(*name); }; });
}

}  // namespace cuzk::cli
