// Which service a shared-memory segment (the ring, a GPU's CUDA lock) belongs to. A service is the set of
// stages sharing one runtime directory; its name is that directory's canonical path, recorded in the header of
// every segment its stages create. Two services whose configurations name the same [ring] name (or [gpud]
// lock_name) would otherwise exchange partitions silently (jobs failing, others hanging): a stage that opens a
// segment of another service still running (one of its stages holds its instance lock) is refused at start,
// naming both services and the key to change. A segment whose service is gone (every stage of it stopped, or
// its runtime directory moved) is taken over with a warning, as is one that names no service.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "daemon/config.hpp"

namespace cuzk::daemon {

// The service of |c|: the canonical path of [runtime] dir; a path longer than a header holds is shortened to its
// head and a digest of the whole, so different directories keep different names.
std::string service_name(const config& c);

// True when a stage serves |runtime_dir| now: one of its <stage>.lock files is held (daemon/instance_lock.hpp).
// A directory that cannot be read counts as running (refusing is the safe side).
bool service_running(const std::filesystem::path& runtime_dir);

// Checks the service recorded in an opened segment against |self|: the same, nothing; none, or one no longer
// running, |take_over| records |self| (the latter logged); another running service throws input_error naming
// |what| (e.g. "ring 'cuzk-ring'"), both services and |key| (the configuration key that names the segment).
void claim_for_service(std::string_view what, std::string_view key, const std::string& recorded,
                       const std::string& self, const std::function<void()>& take_over);

}  // namespace cuzk::daemon
