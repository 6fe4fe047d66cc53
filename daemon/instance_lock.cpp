#include "daemon/instance_lock.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/util/errors.hpp"

namespace cuzk::daemon {

instance_lock::instance_lock(const std::filesystem::path& runtime_dir, std::string_view stage) {
    const auto path = runtime_dir / fmt::format("{}.lock", stage);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) throw input_error(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        char buf[32] = {};
        const auto n = ::pread(fd_, buf, sizeof buf - 1, 0);
        ::close(fd_);
        fd_ = -1;
        throw input_error(fmt::format("another cuzk-{} (pid {}) already serves the runtime directory {} (lock {}); "
                                      "stop it first or use another runtime directory",
                                      stage, n > 0 ? std::string(buf, static_cast<size_t>(n)) : "?",
                                      runtime_dir.string(), path.string()));
    }
    const auto pid = std::to_string(::getpid());
    if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
    // Whole or not at all (a reader never sees half a number): written aside, then renamed over the old one.
    const auto pid_file = runtime_dir / fmt::format("{}.pid", stage);
    const auto tmp = pid_file.string() + ".tmp";
    const int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const auto line = pid + "\n";
    const bool written = out >= 0 && ::write(out, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    if (out >= 0) ::close(out);
    if (!written || ::rename(tmp.c_str(), pid_file.c_str()) != 0) {
        const int error = errno;
        ::unlink(tmp.c_str());
        throw input_error(fmt::format("cannot write {}: {}", pid_file.string(), std::strerror(error)));
    }
}

instance_lock::~instance_lock() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace cuzk::daemon
