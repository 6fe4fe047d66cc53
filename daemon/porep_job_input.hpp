// The input of a proof_kind::porep_c2 job: a C1 file (SealCommitPhase1Output JSON, or lotus-bench's
// c2in.json), read and checked once per process that needs it.
//   assemblerd: at submission (a bad C1 is refused with its JSON path) and to verify the assembled proof
//               (the public inputs of each partition; the C1 itself is not kept).
//   synthd:     once per job (cached), to build each partition's witness.
// Partition k's circuit is porep:<registered proof>: one shape per registered proof, hence one parameter
// file per registered proof (daemon/params_store.hpp names it).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/ff/bls12_381.hpp"
#include "common/graph/stacked_graph.hpp"
#include "common/porep/public_inputs.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/stacked_circuit.hpp"

namespace cuzk::daemon {

struct porep_job_input {
    const porep::registered_proof* proof = nullptr;
    porep::seal_public_inputs public_inputs;
    std::shared_ptr<const c1::seal_commit_phase1_output> c1;  // only when read with keep_c1
    std::shared_ptr<const graph::stacked_graph> graph;

    std::uint32_t partitions() const { return proof->partitions; }
    // "porep:StackedDrg2KiBV1_1": the circuit spec of every partition (the parameters' shape).
    std::string circuit() const;
    // generate_public_inputs of partition k (without ONE).
    std::vector<ff::fr_t> partition_inputs(std::uint32_t partition) const;
    // Partition k's witness (needs the C1: keep_c1). Throws input_error naming the JSON path.
    porep::partition_witness partition_witness(std::uint32_t partition) const;
};

// Reads |path|, checks it (parse, check_consistency, a registered proof of the table) and derives the
// public inputs. Errors throw input_error naming |source| (a file name the user knows) and the JSON path.
porep_job_input read_porep_job_input(const std::filesystem::path& path, const std::string& source, bool keep_c1);

}  // namespace cuzk::daemon
