#include "daemon/ring_setup.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/util/errors.hpp"
#include "ipc/shm_error.hpp"

namespace cuzk::daemon {

ipc::ring_config ring_config_of(const config& c) {
    ipc::ring_config r;
    r.segment.name = c.ring.name;
    r.segment.directory = c.ring.shm_dir;
    if (!c.ring.group.empty()) {
        r.segment.group = c.ring.group;
        r.segment.mode = 0660;
    }
    r.slot_count = c.ring.slots;
    r.slot_bytes = c.ring.slot_bytes;
    return r;
}

namespace {

ipc::partition_ring open_ring(const config& c) {
    try {
        auto ring = ipc::partition_ring::open_or_create(ring_config_of(c));
        for (const auto& r : ring.reclaim_dead()) {
            spdlog::warn("ring slot {} of job {} partition {} was {} by pid {}, now dead: reclaimed", r.slot, r.job_id,
                         r.partition, ipc::to_string(r.from), r.dead_holder);
        }
        return ring;
    } catch (const ipc::shm_error& e) {
        throw input_error(fmt::format("ring '{}' ({} slots of {} bytes): {}", c.ring.name, c.ring.slots,
                                      c.ring.slot_bytes, e.what()));
    }
}

}  // namespace

ipc::ring_writer open_ring_writer(const config& c) { return ipc::ring_writer(open_ring(c)); }

ipc::ring_prover open_ring_prover(const config& c) { return ipc::ring_prover(open_ring(c)); }

}  // namespace cuzk::daemon
