// cuzk circuit-info --registered-proof NAME: the size of one PoRep partition circuit, synthesized
// blank into a counting constraint system (no witness, nothing stored: seconds and a few MB even
// for 32 GiB), printed as JSON. "constraints" is what the circuit enforces (rust-fil-proofs'
// circuitinfo figure); "constraints_with_input_rows" adds the row bellperson's prover appends per
// public input, ONE included, which is the number of rows the FFT domain must hold. "r1cs_matrices"
// gives the terms of A, B and C, their distinct coefficients, and the bytes of the matrix file and of the
// matrices in memory once recorded (common/r1cs).
// With --c1 it also synthesizes partition 0 of a C1 against its witness (checking_cs) and says
// whether the C1 is a valid witness and how long that took. With --scalar-census it synthesizes one
// partition of the C1 as synthd does (a proving assignment: ~17 GB at 32 GiB) and counts its L, A and B
// scalars by class (zero, one, small, other: groth16/scalar_census.hpp).
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/circuit_info_report.hpp"
#include "cli/command.hpp"
#include "cli/post_circuit_info.hpp"
#include "cli/update_circuit_info.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/r1cs/matrix_counter.hpp"
#include "common/r1cs/matrix_file.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/stacked_circuit.hpp"
#include "common/porep/synthetic_witness.hpp"
#include "common/c1/seal_commit_phase1.hpp"
#include "common/porep/c1_witness.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/scalar_census.hpp"
#include "common/porep/porep_circuit.hpp"
#include "common/porep/public_inputs.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {

// Partition |k| of the C1 synthesized as synthd synthesizes it (with its public inputs, into a proving
// assignment), then its MSM scalars counted by class.
nlohmann::ordered_json porep_scalar_census(const c1::seal_commit_phase1_output& c1,
                                           const porep::registered_proof& proof, unsigned k) {
    const porep::porep_partition_circuit circuit(
        proof, porep::witness_of(c1, proof, k),
        porep::generate_public_inputs(proof, porep::graph_of(proof), porep::public_inputs_of(c1), k));
    return scalar_census_report(circuit, k);
}

struct circuit_info_options {
    std::string name, c1_path, randomness, comm_r_old, comm_d_new, comm_r_new, h;
    std::vector<std::string> vanilla;
    bool witness_timing = false, census = false, partition_given = false;
    unsigned census_partition = 0;
};

int run_circuit_info(const circuit_info_options& o) {
    const std::string& name = o.name;
    const std::string& c1_path = o.c1_path;
    const bool census = o.census, witness_timing = o.witness_timing;
    const unsigned census_partition = o.census_partition;
    if (name.empty() && c1_path.empty()) throw input_error("give --registered-proof or --c1");
    const bool post_witness = !o.vanilla.empty() || !o.randomness.empty();
    const bool update_witness =
        !o.comm_r_old.empty() || !o.comm_d_new.empty() || !o.comm_r_new.empty() || !o.h.empty();
    if (name.starts_with("StackedDrgWin")) {  // StackedDrgWindow*, StackedDrgWinning*: PoSt
        if (update_witness)
            throw input_error("--comm-r-old, --comm-d-new, --comm-r-new and --h are for SnapDeals, not " + name);
        if (!c1_path.empty()) throw input_error("--c1 is for PoRep, not " + name + " (PoSt: --vanilla, --randomness)");
        if (o.partition_given)
            throw input_error("--partition is for a PoRep C1; a PoSt census counts the partition of its --vanilla "
                              "files");
        if (census != post_witness || (census && (o.vanilla.empty() || o.randomness.empty())))
            throw input_error("--scalar-census of " + name + " needs --vanilla and --randomness (the witness to "
                              "count), and they are only for it");
        std::optional<post_census_input> input;
        if (census) input = post_census_input{o.randomness, o.vanilla};
        return run_post_circuit_info(post::registered_post_proof_by_name(name), witness_timing, input);
    }
    if (name.starts_with("StackedDrgUpdate") || name.starts_with("RegisteredUpdateProof_")) {  // SnapDeals
        if (!c1_path.empty()) throw input_error("--c1 is for PoRep, not " + name + " (SnapDeals: --vanilla, --comm-*)");
        if (!o.randomness.empty()) throw input_error("--randomness is for PoSt, not " + name);
        const bool given = update_witness || !o.vanilla.empty() || o.partition_given;
        if (census != given || (census && (o.vanilla.empty() || o.comm_r_old.empty() || o.comm_d_new.empty() ||
                                           o.comm_r_new.empty())))
            throw input_error("--scalar-census of " + name + " needs --vanilla (every partition's file, in order), "
                              "--comm-r-old, --comm-d-new and --comm-r-new (--h and --partition optional), and "
                              "they are only for it");
        std::optional<update_census_input> input;
        if (census)
            input = update_census_input{o.vanilla, o.comm_r_old, o.comm_d_new, o.comm_r_new, o.h, census_partition};
        return run_update_circuit_info(update::registered_update_proof_by_name(name), witness_timing, input);
    }
    if (post_witness)
        throw input_error("--vanilla and --randomness are for a PoSt or SnapDeals --scalar-census, not " + name);
    if (update_witness) throw input_error("--comm-r-old, --comm-d-new, --comm-r-new and --h are for a SnapDeals "
                                          "--scalar-census, not " + name);
    if (census && c1_path.empty()) throw input_error("--scalar-census needs --c1 (the witness to count)");
    std::optional<c1::seal_commit_phase1_output> c1;
    double parse_s = 0;
    if (!c1_path.empty()) {
        auto t0 = std::chrono::steady_clock::now();
        c1 = c1::read_c1_file(c1_path);
        c1::check_consistency(*c1, c1_path);
        parse_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!name.empty() && name != c1->registered_proof)
            throw input_error("--c1 " + c1_path + " is a " + c1->registered_proof + " C1, not " + name);
    }
    const porep::registered_proof& proof =
        c1 ? porep::registered_proof_of(*c1) : porep::registered_proof_by_name(name);
    if (census && census_partition >= proof.partitions)  // before any synthesis
        throw input_error("--partition " + std::to_string(census_partition) + " is not a partition of the C1 " +
                          c1_path + " (it has " + std::to_string(proof.partitions) + ", numbered from 0)");
    const auto shape = porep::stacked_circuit_shape::of(proof);
    auto start = std::chrono::steady_clock::now();
    r1cs::matrix_counter counter;
    porep::synthesize_stacked_partition(counter, shape, nullptr);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const r1cs::matrix_sizes sizes = counter.sizes();

    const uint64_t rows = sizes.circuit_rows + sizes.num_inputs;
    nlohmann::ordered_json out;
    out["registered_proof"] = std::string(proof.name);
    out["constraints"] = sizes.circuit_rows;
    out["constraints_with_input_rows"] = rows;
    out["inputs"] = sizes.num_inputs;
    out["aux"] = sizes.num_aux;
    out["partitions"] = proof.partitions;
    out["challenges_per_partition"] = proof.challenges_per_partition;
    out["layers"] = proof.layers;
    out["sector_size"] = proof.sector_size;
    out["nodes"] = proof.nodes;
    out["tree_shape"] = {proof.tree.base, proof.tree.sub, proof.tree.top};
    out["api_version"] = proof.version == graph::api_version::v1_0 ? "1.0.0" : "1.1.0";
    out["domain_size"] = std::bit_ceil(rows);
    out["matrix_terms"] = sizes.non_zeros();
    out["r1cs_matrices"] = {
        {"non_zeros", sizes.non_zeros()},
        {"a_non_zeros", sizes.a_terms},
        {"b_non_zeros", sizes.b_terms},
        {"c_non_zeros", sizes.c_terms},
        {"distinct_coefficients", sizes.coefficients},
        {"file_bytes", r1cs::matrix_file_bytes(sizes, porep::porep_partition_circuit(proof).name().size())},
        {"memory_bytes", r1cs::memory_bytes(sizes)}};
    out["synthesis_seconds"] = std::round(seconds * 1000) / 1000;
    if (witness_timing) {
        // Synthesis with witness computation (random values of the right shape) into a system
        // that stores nothing: the cost of generating the witness alone, on one thread.
        auto witness = porep::make_synthetic_witness(shape, proof.nodes, 1);
        auto t0 = std::chrono::steady_clock::now();
        cs::counting_cs timed(true);
        porep::synthesize_stacked_partition(timed, shape, &witness);
        double ws = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        out["witness_synthesis_seconds"] = std::round(ws * 1000) / 1000;
        out["witness_constraints_per_second"] = uint64_t(double(timed.num_constraints()) / ws);
    }
    if (c1) {
        // Partition 0 of the C1 with its witness, every constraint checked against it and
        // forgotten: synthesis time, and whether the C1 is a valid witness.
        auto t0 = std::chrono::steady_clock::now();
        porep::partition_witness w = porep::witness_of(*c1, proof, 0);
        cs::checking_cs checked;
        porep::synthesize_stacked_partition(checked, shape, &w);
        double cs_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        out["c1_parse_and_check_seconds"] = std::round(parse_s * 1000) / 1000;
        out["c1_partition0_synthesis_and_check_seconds"] = std::round(cs_s * 1000) / 1000;
        out["c1_partition0_satisfied"] = checked.is_satisfied();
        if (!checked.is_satisfied()) out["c1_partition0_first_failure"] = *checked.first_failure();
    }
    if (census) out["scalar_census"] = porep_scalar_census(*c1, proof, census_partition);
    out["note"] =
        "constraints: enforced by the circuit (no input rows); constraints_with_input_rows: plus one "
        "'input * 0 = 0' row per public input (ONE included) as bellperson's prover adds; inputs include ONE";
    std::printf("%s\n", out.dump(2).c_str());
    return exit_ok;
}

}  // namespace

void add_circuit_info_command(CLI::App& app, action& run) {
    auto* cmd = app.add_subcommand("circuit-info", "Size of one PoRep, PoSt or SnapDeals partition circuit (JSON)");
    auto o = std::make_shared<circuit_info_options>();
    cmd->add_option("--registered-proof", o->name,
                    "e.g. StackedDrg32GiBV1_1 (" + porep::registered_proof_names() + ") or a PoSt proof (" +
                        post::registered_post_proof_names() + ") or a SnapDeals proof (" +
                        update::registered_update_proof_names() + ")");
    cmd->add_option("--c1", o->c1_path,
                    "also synthesize partition 0 of this C1 with its witness, checking every constraint");
    cmd->add_flag("--witness-timing", o->witness_timing,
                  "also time one synthesis with witness computation (random values, one thread)");
    cmd->add_flag("--scalar-census", o->census,
                  "with --c1 (PoRep), --vanilla and --randomness (PoSt) or --vanilla and --comm-* (SnapDeals): "
                  "synthesize one partition as synthd does (~17 GB at 32 GiB) and count its L, A, B scalars by "
                  "class (zero, one, small, other)");
    auto* partition = cmd->add_option("--partition", o->census_partition,
                                      "the partition of the C1 (PoRep) or of the update (SnapDeals) --scalar-census "
                                      "counts (default 0)");
    cmd->add_option("--vanilla", o->vanilla,
                    "PoSt --scalar-census: the partition's vanilla proofs, one bincode FallbackPoStSectorProof per "
                    "file (as prove-post takes them); SnapDeals: every partition's PartitionProof file, in order (as "
                    "prove-update takes them)")
        ->expected(1, -1);
    cmd->add_option("--randomness", o->randomness, "PoSt --scalar-census: 32 bytes hex, a canonical field element");
    cmd->add_option("--comm-r-old", o->comm_r_old,
                    "SnapDeals --scalar-census: the sector key's comm_r (hex as stored)");
    cmd->add_option("--comm-d-new", o->comm_d_new, "SnapDeals --scalar-census: the new data's comm_d (hex as stored)");
    cmd->add_option("--comm-r-new", o->comm_r_new, "SnapDeals --scalar-census: the new comm_r (hex as stored)");
    cmd->add_option("--h", o->h, "SnapDeals --scalar-census: the update's h (default the sector size's)");
    cmd->callback([&run, o, partition] {
        o->partition_given = partition->count() > 0;
        run = [o] { return run_circuit_info(*o); };
    });
}

}  // namespace cuzk::cli
