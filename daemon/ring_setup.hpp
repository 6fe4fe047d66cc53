// The ring every stage opens from the same [ring] section (whoever starts first creates it), handed to each
// stage as the view of its role: synthd writes slots, gpud proves them.
#pragma once

#include "daemon/config.hpp"
#include "ipc/partition_ring.hpp"
#include "ipc/ring_prover.hpp"
#include "ipc/ring_writer.hpp"

namespace cuzk::daemon {

ipc::ring_config ring_config_of(const config& c);

// Each opens the ring (or creates it), takes back the slots a dead process left (logged) and hands it over
// as the caller's view. Throws input_error with the shared-memory failure (size, directory) and what to change.
ipc::ring_writer open_ring_writer(const config& c);
ipc::ring_prover open_ring_prover(const config& c);

}  // namespace cuzk::daemon
