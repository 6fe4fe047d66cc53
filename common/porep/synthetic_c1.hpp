// A C1 of any registered proof's shape without sealing, for benchmarks at production size (the
// 32 GiB C1 that seal-test --synthetic writes): labels and data are pseudo-random functions of
// (seed, layer, node), so every node's column is the same wherever it appears; column hashes,
// the replica leaf (last label + data) and comm_r = Poseidon(comm_c, comm_r_last) are real; the
// challenges and their DRG / expander parents are the real ones for the replica id and seed; but
// Merkle siblings are random under shared random roots, so the C1 passes check_consistency and
// synthesizes at full size while its witness does NOT satisfy the circuit: no valid proof comes of it.
#pragma once

#include <string_view>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/porep/registered_proof.hpp"

namespace cuzk::porep {

c1::seal_commit_phase1_output make_synthetic_c1(const registered_proof& proof, std::string_view seed_text);

}  // namespace cuzk::porep
