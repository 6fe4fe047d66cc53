// The ring every stage opens from the same [ring] section (whoever starts first creates it), handed to each
// stage as the view of its role: synthd writes slots, gpud proves them. Each stage marks the ring in use for as
// long as it runs (daemon/ring_setup_lock.hpp), so a ring that no live process uses can be rebuilt (another
// slot count or slot size in the configuration) or removed (`cuzk down`) safely.
#pragma once

#include <filesystem>
#include <string>

#include "daemon/config.hpp"
#include "ipc/partition_ring.hpp"
#include "ipc/ring_prover.hpp"
#include "ipc/ring_writer.hpp"

namespace cuzk::daemon {

ipc::ring_config ring_config_of(const config& c);

// Each opens the ring (or creates it), takes back the slots a dead process left (logged) and hands it over
// as the caller's view. A ring of another geometry or layout (or left half-created) is rebuilt, logged, when no
// live process uses it; while one does, it is refused naming those processes. Throws input_error with the
// shared-memory failure (size, directory) and what to change.
ipc::ring_writer open_ring_writer(const config& c);
ipc::ring_prover open_ring_prover(const config& c);

// `cuzk down`: removes the ring's segment unless a live process still uses it.
struct ring_removal {
    enum outcome_t { removed, absent, in_use, failed } outcome = absent;
    std::filesystem::path path;  // the segment's backing file
    std::string detail;          // in_use: the processes using it; failed: why it could not be checked
};
ring_removal remove_unused_ring(const config& c);

}  // namespace cuzk::daemon
