#include "daemon/cuda_lock_setup.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "common/util/errors.hpp"
#include "daemon/ring_setup_lock.hpp"
#include "daemon/service_segment.hpp"
#include "ipc/shm_error.hpp"

namespace cuzk::daemon {

ipc::cuda_lock open_cuda_lock(const config& c) {
    ipc::cuda_lock_options o;
    o.segment.name = c.gpud.lock_name;
    o.segment.service = service_name(c);
    const auto path = o.segment.backing_path().string();
    try {
        // The same serialisation and use marks as the ring's: flocks on the segment's directory and file.
        const auto setup = lock_ring_setup(o.segment);
        std::optional<ipc::cuda_lock> lock;
        try {
            lock.emplace(ipc::cuda_lock::open_or_create(o));
        } catch (const ipc::shm_error& e) {
            if (e.code() != ipc::shm_errc::incompatible && e.code() != ipc::shm_errc::not_initialized) throw;
            const auto exclusive = claim_unused_ring(o.segment);
            if (!exclusive)
                throw input_error(fmt::format("CUDA lock '{}' ({}): {}; still in use by {}: stop them and start gpud "
                                              "again, the lock is then rebuilt",
                                              o.segment.name, path, e.what(), flock_holders(o.segment.backing_path())));
            if (!exclusive->held() && exclusive->errno_value() != ENOENT)
                throw input_error(fmt::format("CUDA lock '{}': {}; cannot open {} to see whether a process still uses "
                                              "it: {}",
                                              o.segment.name, e.what(), path, std::strerror(exclusive->errno_value())));
            spdlog::warn("CUDA lock '{}' ({}): {}; no process uses it: rebuilt", o.segment.name, path, e.what());
            ipc::cuda_lock::remove(o.segment);
            lock.emplace(ipc::cuda_lock::open_or_create(o));
        }
        hold_ring_use(o.segment);
        return std::move(*lock);
    } catch (const ipc::shm_error& e) {
        throw input_error(fmt::format("CUDA lock '{}' ({}): {}", o.segment.name, path, e.what()));
    }
}

}  // namespace cuzk::daemon
