// gpud's CUDA lock, opened the way the ring is (daemon/ring_setup.hpp): a lock segment of another layout (left by
// an older build: an upgrade) or left half-created is rebuilt, with a warning, when no live process uses it, and
// refused naming the processes that do; each gpud holds a shared flock on the segment for its life so that the
// next one can tell (daemon/ring_setup_lock.hpp). The lock's service is then claimed (daemon/service_segment.hpp).
#pragma once

#include "daemon/config.hpp"
#include "ipc/cuda_lock.hpp"

namespace cuzk::daemon {

// The lock [gpud] lock_name names, recorded as this service's when created. Throws input_error naming the segment,
// the failure and what to do.
ipc::cuda_lock open_cuda_lock(const config& c);

}  // namespace cuzk::daemon
