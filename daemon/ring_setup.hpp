// The ring every stage opens from the same [ring] section (whoever starts first creates it).
#pragma once

#include "daemon/config.hpp"
#include "ipc/partition_ring.hpp"

namespace cuzk::daemon {

ipc::ring_config ring_config_of(const config& c);
// open_or_create, then returns the slots a dead process left (logged). Throws input_error with the
// shared-memory failure (size, directory) and what to change.
ipc::partition_ring open_ring(const config& c);

}  // namespace cuzk::daemon
