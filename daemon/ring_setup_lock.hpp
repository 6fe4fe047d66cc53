// Who uses a ring, told by flock(2) on its backing file (/dev/shm/<name>, or the file in [ring] shm_dir). Every
// stage that maps the ring holds a shared flock on that file for the rest of its life; the kernel drops it when
// the process ends, however it ends (kill -9 included), so an exclusive flock that is granted proves that no live
// process uses the ring. That is what lets a stage rebuild a ring of another geometry (a changed [ring] slots or
// slot_bytes) instead of refusing, and `cuzk down` remove the segment, without ever pulling a ring from under a
// running stage. An exclusive flock on the backing directory, held only while a ring is opened, created, rebuilt
// or removed, serialises those steps, so no stage maps a segment that another is about to remove.
// /proc/locks names the processes holding the flocks, for the messages.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ipc/shm_segment.hpp"

namespace cuzk::daemon {

// A file descriptor holding a flock, released (closed) with the object.
class file_flock {
public:
    // LOCK_SH or LOCK_EX on |path|; |wait|: block until granted. An invalid object when not granted (another
    // process holds a conflicting one) or when |path| cannot be opened (errno_value says why).
    file_flock(const std::filesystem::path& path, int operation, bool wait, bool directory = false);
    ~file_flock();
    file_flock(file_flock&& other) noexcept;
    file_flock& operator=(file_flock&&) = delete;
    file_flock(const file_flock&) = delete;

    bool held() const { return fd_ >= 0; }
    int errno_value() const { return errno_; }

private:
    int fd_ = -1;
    int errno_ = 0;
};

// Held while a ring is set up or removed: the exclusive flock on the directory that holds its segment. Blocks
// until granted; without it (a directory that cannot be opened) the setup goes on unserialised and the
// segment's own errors report the directory.
file_flock lock_ring_setup(const ipc::segment_location& where);

// Takes a shared flock on the ring's backing file for the rest of this process's life. Call under
// lock_ring_setup, after the ring was opened or created. Throws std::runtime_error when the file cannot be
// opened (the ring would then look unused to the next stage).
void hold_ring_use(const ipc::segment_location& where);

// The exclusive flock on the ring's backing file, to rebuild or remove the ring under it, when no live process
// uses the ring; std::nullopt when one does. Call under lock_ring_setup. A missing file gives a lock not held.
std::optional<file_flock> claim_unused_ring(const ipc::segment_location& where);

// "812 (cuzk-synthd), 813 (cuzk-gpud)": the processes holding a flock on |path| (/proc/locks, /proc/<pid>/comm);
// "unknown processes" when none can be named.
std::string flock_holders(const std::filesystem::path& path);

}  // namespace cuzk::daemon
