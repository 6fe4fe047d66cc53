// One fallback PoSt partition from the vanilla proofs Curio sends, ready to prove, after the checks
// filecoin-proofs makes before it proves (single_partition_vanilla_proofs): the sector count of the registered
// proof (Window 1..sector_count, Winning exactly 1), ascending unique sector numbers, and every vanilla proof
// verified natively against the leaves its position challenges (vanilla_verify.hpp), sectors in parallel.
// A proof that fails is refused naming the sector before any synthesis is spent on it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/post/challenges.hpp"
#include "common/post/post_circuit.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/post/vanilla_proof.hpp"

namespace cuzk::post {

// |proofs| in the order they are proved; |sources| names each (a file, "vanilla_proofs[3]") in errors, or is
// empty. The randomness must be a canonical field element. Throws cuzk::input_error. |verify| false skips the
// native verification of each proof (the shape and order checks stay), for proofs already verified by this
// service: synthd reads the input assemblerd verified at submission from the service's own spool.
post_partition_circuit partition_circuit_of(const registered_post_proof& proof, const bytes32& randomness,
                                            std::span<const fallback_sector_proof> proofs,
                                            std::span<const std::string> sources = {}, bool verify = true);

}  // namespace cuzk::post
