// One instance of a stage per runtime directory: an flock on <runtime dir>/<stage>.lock, held for the life of
// the process and dropped by the kernel when it dies (kill -9 included), so a restart never waits for a
// stale lock while a second copy started by mistake is refused instead of stealing the first one's sockets.
// The holder, and only the holder, writes <runtime dir>/<stage>.pid (what `cuzk down` signals): a copy that
// loses the lock never touches it, so two `cuzk up` at once cannot leave it naming a process that exited.
#pragma once

#include <filesystem>
#include <string_view>

namespace cuzk::daemon {

class instance_lock {
public:
    // Throws input_error naming the lock file and the pid that holds it.
    instance_lock(const std::filesystem::path& runtime_dir, std::string_view stage);
    ~instance_lock();
    instance_lock(const instance_lock&) = delete;
    instance_lock& operator=(const instance_lock&) = delete;

private:
    int fd_ = -1;
};

}  // namespace cuzk::daemon
