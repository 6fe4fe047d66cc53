// gpud: [gpud] workers threads per GPU. A worker takes the oldest READY slot, prepares it (CPU), takes the
// GPU's CUDA lock only around the kernels, releases it, does the tail (B_G2 MSM, blinding, serialization),
// sends PARTITION_PROOF to the assembler and frees the slot. Two workers thus overlap one's CPU work with
// the other's kernels. A slot whose job was cancelled is freed unproved.
#pragma once

#include "daemon/config.hpp"

namespace cuzk::gpud {

int serve(const daemon::config& c);

}  // namespace cuzk::gpud
