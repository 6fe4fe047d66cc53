// What `cuzk status` prints by default: a few lines an operator reads at a glance, from the same document that
// `cuzk status --json` prints whole (daemon/service_status.hpp; hundreds of lines once jobs are in it):
//
//   assemblerd    up    pid 812, uptime 3 h 12 min, 2 of max 64 jobs pending
//   synthd        up    pid 813, 16 threads: 2 synthesizing, 5 queued, 0 waiting for a slot; 1210 synthesized
//   gpud GPU 0    up    pid 814, backend cuda, 2 workers (1 busy), 1208 proved
//   jobs          1 running, 1 queued, 40 done, 1 failed
//   ring          cuzk-ring: 3 of 8 slots in use (1 PROVING, 2 READY), 256.0 MiB each
//   GPU 0         NVIDIA H200, 20.3 GiB free of 139.8 GiB; CUDA lock cuzk-cuda-lock-gpu0 held, 1 waiting, 1208 acquisitions
//   params GPU 0  porep:StackedDrg32GiBV1_1 47.5 GiB; their host copy given back: 47.5 GiB
//
// A daemon that does not answer is "down". Fields an older daemon lacks are left out, never guessed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "daemon/config.hpp"

namespace cuzk::cli {

// The lines above, each ending in a newline, for |status| (collect_service_status's JSON) of the service of |c|.
std::string status_summary(const nlohmann::json& status, const daemon::config& c);

}  // namespace cuzk::cli
