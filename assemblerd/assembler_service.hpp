// assemblerd: the front door and owner of job state.
//   clients   -> api socket (ROUTER):   SUBMIT, AWAIT (long poll), CANCEL, STATUS_REQUEST (client_requests)
//   synthd    <- JOB, CANCEL            (stage_sockets; what is dispatched when: dispatcher)
//   gpuds     <- CANCEL                 (one DEALER per gpud-<gpu> socket found in the runtime dir: every gpud
//                                        may hold a partition of the job in flight)
//   stages    -> results socket (PULL): SLOT_READY, PARTITION_PROOF, PARTITION_FAILED, STAGE_HELLO
//                                       (stage_results)
// Job state lives in the job_table, made durable by the journal; a job's end (done after the proof_verifier,
// failed, cancelled) is job_completion's. The ring is the stages' alone: synthd and gpud free a cancelled
// job's slots when its CANCEL reaches them.
#pragma once

#include "daemon/config.hpp"

namespace cuzk::assemblerd {

int serve(const daemon::config& c);

}  // namespace cuzk::assemblerd
