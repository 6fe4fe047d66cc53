#include "daemon/ring_setup.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstring>
#include <filesystem>
#include <optional>

#include "common/util/errors.hpp"
#include "daemon/ring_setup_lock.hpp"
#include "daemon/service_segment.hpp"
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
    r.segment.service = service_name(c);
    r.slot_count = c.ring.slots;
    r.slot_bytes = c.ring.slot_bytes;
    return r;
}

namespace {

// What the existing segment is, for the messages: its geometry, or why it cannot be read as a ring.
std::string describe_existing(const ipc::segment_location& where) {
    try {
        const auto ring = ipc::partition_ring::open(where, std::chrono::milliseconds(0));
        return fmt::format("has {} slots of {} bytes", ring.slot_count(), ring.slot_bytes());
    } catch (const std::exception& e) {
        return fmt::format("cannot be used as this version's ring ({})", e.what());
    }
}

// A segment of another geometry or layout, or one whose creator died before publishing its header: rebuilt when
// no live process uses it (the slots of a ring nobody maps hold nothing that is not redone: assemblerd
// re-dispatches every partition without a journaled proof), refused naming the users otherwise.
ipc::partition_ring rebuild_unused(const ipc::ring_config& rc, const ipc::shm_error& why) {
    const auto& where = rc.segment;
    const auto path = where.backing_path().string();
    const std::string existing = describe_existing(where);
    const auto exclusive = claim_unused_ring(where);
    if (!exclusive) {
        throw input_error(fmt::format(
            "ring '{}' ({}) {}, the configuration asks for {} slots of {} bytes, and it is still in use by {}: stop "
            "every stage using it (`cuzk down`, or `systemctl stop cuzk.target`) and start them again; the ring is "
            "rebuilt with the configured size once no process uses it",
            where.name, path, existing, rc.slot_count, rc.slot_bytes, flock_holders(where.backing_path())));
    }
    if (!exclusive->held() && exclusive->errno_value() != ENOENT) {
        throw input_error(fmt::format("ring '{}': {} ({}); cannot open {} to see whether a process still uses it: {}",
                                      where.name, why.what(), existing, path, std::strerror(exclusive->errno_value())));
    }
    spdlog::warn("ring '{}' ({}) {}, the configuration asks for {} slots of {} bytes; no process uses it: rebuilt",
                 where.name, path, existing, rc.slot_count, rc.slot_bytes);
    ipc::partition_ring::remove(where);
    return ipc::partition_ring::create(rc);
}

ipc::partition_ring open_ring(const config& c) {
    const auto rc = ring_config_of(c);
    try {
        // Serialises the setup with every other stage's and with `cuzk down`'s removal (ring_setup_lock.hpp).
        const auto setup = lock_ring_setup(rc.segment);
        std::optional<ipc::partition_ring> opened;
        try {
            opened.emplace(ipc::partition_ring::open_or_create(rc));
        } catch (const ipc::shm_error& e) {
            if (e.code() != ipc::shm_errc::incompatible && e.code() != ipc::shm_errc::not_initialized) throw;
            opened.emplace(rebuild_unused(rc, e));
        }
        hold_ring_use(rc.segment);
        auto ring = std::move(*opened);
        // Another running service configured with the same [ring] name would trade partitions with this one.
        claim_for_service(fmt::format("ring '{}'", c.ring.name), "[ring] name", ring.service(), rc.segment.service,
                          [&] { ring.take_over(rc.segment.service); });
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

ring_removal remove_unused_ring(const config& c) {
    const auto where = ring_config_of(c).segment;
    ring_removal out;
    out.path = where.backing_path();
    const auto setup = lock_ring_setup(where);
    std::error_code ec;
    if (!std::filesystem::exists(out.path, ec)) {
        out.outcome = ring_removal::absent;
        return out;
    }
    const auto exclusive = claim_unused_ring(where);
    if (!exclusive) {
        out.outcome = ring_removal::in_use;
        out.detail = flock_holders(out.path);
        return out;
    }
    if (!exclusive->held() && exclusive->errno_value() != ENOENT) {
        out.outcome = ring_removal::failed;
        out.detail = std::strerror(exclusive->errno_value());
        return out;
    }
    out.outcome = ipc::partition_ring::remove(where) ? ring_removal::removed : ring_removal::absent;
    return out;
}

}  // namespace cuzk::daemon
