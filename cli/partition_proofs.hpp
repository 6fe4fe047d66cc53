// What the three Filecoin verifiers (verify-seal, verify-post, verify-update) read before they check anything: a
// verifying key that fits the circuit's public inputs, and a proof file of exactly one 192-byte Groth16 proof per
// partition. A key of another circuit or a file of another length is a bad input (exit 2), named with what was
// expected, never an "invalid" proof: the two answers mean different things to the caller.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/groth16/keys.hpp"
#include "common/groth16/proof.hpp"

namespace cuzk::cli {

// Reads the .vk at |path|; throws input_error naming it when its IC points do not number |public_inputs| + 1.
// |circuit| names the circuit in the message, |other| what the key probably is instead ("another sector size").
groth16::verifying_key read_vk_for(const std::string& path, size_t public_inputs, std::string_view circuit,
                                   std::string_view other);

// Reads the proof file at |path|: |partitions| proofs, in partition order. |made_of| says in the length message
// what makes that many ("StackedDrg2KiBV1_1 makes 1", "3 sector(s) of ... make 1").
std::vector<groth16::proof> read_partition_proofs(const std::string& path, uint64_t partitions,
                                                  std::string_view made_of);

}  // namespace cuzk::cli
