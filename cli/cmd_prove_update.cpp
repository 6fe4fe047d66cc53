// cuzk prove-update --registered-proof NAME --vanilla F [--vanilla F ...] --comm-r-old HEX --comm-d-new HEX
// --comm-r-new HEX [--h H] --params F --out proof.bin: a SnapDeals update proof in one process, as filecoin-proofs'
// generate_empty_sector_update_proof_with_vanilla: decode each partition's bincode PartitionProof
// (vanilla_bincode.hpp; one file per partition, in partition order), check them natively against the public
// values (update_circuit.hpp partition_circuits_of), prove every partition in order, check each proof against the
// parameters' vk and write them concatenated (partition_count x 192 bytes).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "cli/update_vanilla_files.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/verifier.hpp"
#include "common/update/public_inputs.hpp"
#include "common/update/update_circuit.hpp"
#include "common/update/update_shape.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

unsigned update_h_arg(const update::update_shape& shape, const std::string& text) {
    if (text.empty()) return shape.h_default();
    unsigned h = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), h);
    if (ec != std::errc() || p != text.data() + text.size())
        throw input_error("--h: '" + text + "' is not a decimal number");
    if (std::find(shape.hs.begin(), shape.hs.end(), h) == shape.hs.end()) {
        std::string allowed;  // up to 2^10 nodes hs is six times 1: each value once
        for (size_t i = 0; i < shape.hs.size(); ++i)
            if (std::find(shape.hs.begin(), shape.hs.begin() + i, shape.hs[i]) == shape.hs.begin() + i)
                allowed += (allowed.empty() ? "" : ", ") + std::to_string(shape.hs[i]);
        throw input_error("--h: " + text + " is not allowed for a sector of " + std::to_string(shape.nodes) +
                          " nodes (allowed: " + allowed + "; default " + std::to_string(shape.h_default()) + ")");
    }
    return h;
}

namespace {

struct prove_update_options {
    std::string registered_proof, comm_r_old, comm_d_new, comm_r_new, h, params, out;
    std::vector<std::string> vanilla;
};

int run_prove_update(const prove_update_options& o) {
    const update::registered_update_proof& proof = update::registered_update_proof_by_name(o.registered_proof);
    const update::update_shape shape = proof.shape();
    const update::update_commitments pub = update_commitments_of(shape, o.comm_r_old, o.comm_d_new, o.comm_r_new, o.h);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<update::update_partition_circuit> circuits = read_update_partitions(proof, o.vanilla, pub,
                                                                                          "--vanilla");
    const double prepare_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    spdlog::info("{}: {} partition proofs decoded and verified in {:.2f}s (h = {})", proof.name, circuits.size(),
                 prepare_s, pub.h);

    const groth16::parameters params = groth16::read_parameters(o.params);
    const size_t want_ic = update::generate_public_inputs(shape, 0, pub.h, pub.comm_r_old, pub.comm_d_new,
                                                          pub.comm_r_new).size() + 1;
    if (params.vk.ic.size() != want_ic)
        throw input_error(o.params + ": the parameters have " + std::to_string(params.vk.ic.size()) + " IC points; " +
                          std::string(proof.name) + " needs " + std::to_string(want_ic) +
                          " (are these the parameters of another circuit?)");
    const auto pvk = groth16::prepare_verifying_key(params.vk);
    std::vector<uint8_t> bytes;
    bytes.reserve(circuits.size() * groth16::PROOF_BYTES);
    for (size_t k = 0; k < circuits.size(); ++k) {
        const auto t1 = std::chrono::steady_clock::now();
        groth16::proof_result r = groth16::create_proof(circuits[k], params);
        const double prove_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
        spdlog::info("{}: partition {} of {} proved in {:.2f}s ({})", proof.name, k, circuits.size(), prove_s,
                     r.timings.to_string());
        if (!groth16::verify_proof(pvk, r.pi, r.public_inputs)) {
            std::fprintf(stderr, "cuzk: partition %zu's proof does not verify against %s's verifying key: the "
                                 "parameters are not those of %s\n",
                         k, o.params.c_str(), std::string(proof.name).c_str());
            return exit_negative;
        }
        const auto one = groth16::proof_to_bytes(r.pi);
        bytes.insert(bytes.end(), one.begin(), one.end());
    }
    write_file_atomically(o.out, bytes);
    spdlog::info("wrote {} ({} bytes, {} partitions)", o.out, bytes.size(), circuits.size());
    return exit_ok;
}

}  // namespace

void add_prove_update_command(CLI::App& app, action& run) {
    auto o = std::make_shared<prove_update_options>();
    auto* cmd = app.add_subcommand("prove-update",
                                   "Prove a SnapDeals update (EmptySectorUpdate) from its vanilla proofs in this "
                                   "process (no daemons)");
    cmd->add_option("--registered-proof", o->registered_proof,
                    "e.g. StackedDrgUpdate32GiBV1 (" + update::registered_update_proof_names() + ")")
        ->required();
    cmd->add_option("--vanilla", o->vanilla,
                    "one bincode PartitionProof per file and partition, in partition order (repeat the flag or "
                    "list the files)")
        ->required()
        ->expected(1, -1);
    cmd->add_option("--comm-r-old", o->comm_r_old, "the sector key's comm_r: 32 bytes hex as stored")->required();
    cmd->add_option("--comm-d-new", o->comm_d_new, "the new data's comm_d: 32 bytes hex as stored")->required();
    cmd->add_option("--comm-r-new", o->comm_r_new, "the updated replica's comm_r: 32 bytes hex as stored")
        ->required();
    cmd->add_option("--h", o->h, "the update's h (default the sector size's: 10 above 32 KiB, as filecoin-proofs)");
    cmd->add_option("--params", o->params, "Groth16 parameters of the circuit (.params)")->required();
    cmd->add_option("--out", o->out, "proof output (192 bytes per partition, partitions in order)")->required();
    cmd->callback([o, &run] { run = [o] { return run_prove_update(*o); }; });
}

}  // namespace cuzk::cli
