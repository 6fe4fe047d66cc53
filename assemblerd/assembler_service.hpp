// assemblerd: the front door and owner of job state.
//   clients   -> api socket (ROUTER):   SUBMIT, AWAIT (long poll), CANCEL, STATUS_REQUEST
//   synthd    <- JOB, CANCEL            (DEALER to synthd's socket)
//   gpuds     <- CANCEL                 (one DEALER per gpud-<gpu> socket found in the runtime dir: every gpud
//                                        may hold a partition of the job in flight)
//   stages    -> results socket (PULL): SLOT_READY, PARTITION_PROOF, PARTITION_FAILED, STAGE_HELLO
// Jobs are dispatched highest priority first, FIFO within a priority, at most dispatch_window partitions
// handed to synthd and not yet synthesized (so a later high-priority job overtakes the rest of a long one).
// Anything a stage may have lost is dispatched again: on a new STAGE_HELLO from synthd, after a restart of
// assemblerd itself (journal replay), and after partition_timeout_s without news of a partition. Duplicated
// partition proofs are ignored, so re-dispatch never duplicates a job's result. A partition a stage failed
// retryably (PARTITION_FAILED, a GPU's error) is dispatched again until it has failed
// [assemblerd] max_partition_attempts times; then its job fails.
#pragma once

#include "daemon/config.hpp"

namespace cuzk::assemblerd {

int serve(const daemon::config& c);

}  // namespace cuzk::assemblerd
