// A sector sealed from a seed, for tests, benchmarks and the setup/prove tools: random data, a
// replica id from random prover id / ticket, SDR sealing (native_seal.hpp), challenges of partition
// k derived from a seed-derived interactive seed. Everything is a deterministic function of
// (registered proof, seed text), so two processes rebuild the same sector and witness.
#pragma once

#include <string_view>

#include "common/porep/native_seal.hpp"
#include "common/porep/porep_circuit.hpp"
#include "common/porep/public_inputs.hpp"

namespace cuzk::porep {

// Largest sector sealed in memory (8 MiB: 2^18 nodes, a few seconds); larger sizes throw.
inline constexpr uint64_t MAX_SAMPLE_NODES = uint64_t(1) << 18;

struct sample_sector {
    const registered_proof* proof = nullptr;
    graph::stacked_graph graph;
    sealed_sector sector;
    bytes32 prover_id{}, ticket{}, seed{};
    uint64_t sector_id = 0;
    seal_public_inputs public_inputs;

    // The circuit of partition |k| with its witness and public inputs.
    porep_partition_circuit partition_circuit(unsigned k) const;
};

sample_sector make_sample_sector(const registered_proof& proof, std::string_view seed_text);

}  // namespace cuzk::porep
