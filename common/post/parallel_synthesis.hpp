// A fallback PoSt partition's witness synthesized on many threads: its sector slots allocate and constrain only
// their own variables (fallback_circuit.hpp), so groups of slots are synthesized apart and joined in slot order
// (witness_assignment::append), which gives exactly what one synthesis slot after slot gives. A 32 GiB
// WindowPoSt partition has 2,349 slots and 125 M constraints: one thread takes seconds, which a WindowPoSt
// deadline should not wait for while other threads are free.
#pragma once

#include "common/post/post_circuit.hpp"
#include "common/witness/witness_assignment.hpp"

namespace cuzk::post {

// Into |out|, which must be as new or cleared (std::invalid_argument otherwise, or for a blank circuit). Runs on
// the threads of the caller's TBB task arena.
void synthesize_witness_parallel(const post_partition_circuit& circuit, witness::witness_assignment& out);

}  // namespace cuzk::post
