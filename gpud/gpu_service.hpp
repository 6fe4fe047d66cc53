// gpud: [gpud] workers threads per GPU. A worker takes the oldest READY slot, prepares it (CPU), takes the
// GPU's CUDA lock only around the kernels, releases it, does the tail (B_G2 MSM, blinding, serialization),
// sends PARTITION_PROOF to the assembler and frees the slot. Two workers thus overlap one's CPU work with
// the other's kernels. A slot whose job was cancelled is freed unproved.
// A step that throws fails its partition (partition_failure.hpp): retryably for a device failure, which
// assemblerd dispatches again, else the job fails. When the backend then finds its device lost (a sticky CUDA
// error), gpud takes no more slots and exits with status 1, for systemd to restart it with a new context.
// One gpud per GPU (--gpu N): each binds <runtime dir>/gpud-N.sock and holds gpud-N.lock there, and all take
// slots from the one ring; a slot left PROVING by a gpud that died is reclaimed (READY) by any other.
// Its socket also takes PARAMS_REQUEST (params_requests.hpp): a circuit's parameters loaded ahead of its jobs, or
// evicted (freed, with the backend's copy, once the partitions proving with them are done).
#pragma once

#include "daemon/config.hpp"

namespace cuzk::gpud {

int serve(const daemon::config& c);

}  // namespace cuzk::gpud
