#include "daemon/ring_setup_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace cuzk::daemon {

file_flock::file_flock(const std::filesystem::path& path, int operation, bool wait, bool directory) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
    if (fd < 0) {
        errno_ = errno;
        return;
    }
    int rc;
    do {
        rc = ::flock(fd, operation | (wait ? 0 : LOCK_NB));
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        errno_ = errno;
        ::close(fd);
        return;
    }
    fd_ = fd;
}

file_flock::~file_flock() {
    if (fd_ >= 0) ::close(fd_);  // closing the last descriptor of the open file releases its flock
}

file_flock::file_flock(file_flock&& other) noexcept : fd_(other.fd_), errno_(other.errno_) { other.fd_ = -1; }

file_flock lock_ring_setup(const ipc::segment_location& where) {
    return file_flock(where.backing_directory(), LOCK_EX, true, true);
}

void hold_ring_use(const ipc::segment_location& where) {
    // Kept until the process exits: the flock says "this process uses the ring" exactly as long as it does.
    static std::mutex mutex;
    static std::vector<file_flock>* held = new std::vector<file_flock>();  // never destroyed: held to the end
    file_flock lock(where.backing_path(), LOCK_SH, true);
    if (!lock.held())
        throw std::runtime_error(fmt::format("ring '{}': cannot open {} to mark it in use: {}", where.name,
                                             where.backing_path().string(), std::strerror(lock.errno_value())));
    std::lock_guard guard(mutex);
    held->push_back(std::move(lock));
}

std::optional<file_flock> claim_unused_ring(const ipc::segment_location& where) {
    file_flock lock(where.backing_path(), LOCK_EX, false);
    if (!lock.held() && lock.errno_value() == EWOULDBLOCK) return std::nullopt;
    return lock;
}

std::string flock_holders(const std::filesystem::path& path) {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) return "unknown processes";
    // /proc/locks: "1: FLOCK  ADVISORY  READ  812 00:1a:5678 0 EOF"; "1: -> FLOCK ..." for a waiter.
    const std::string key = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev), st.st_ino);
    std::ifstream locks("/proc/locks");
    std::set<long> pids;
    for (std::string l; std::getline(locks, l);) {
        std::istringstream in(l);
        std::vector<std::string> f;
        for (std::string t; in >> t;)
            if (t != "->") f.push_back(t);
        if (f.size() >= 6 && f[1] == "FLOCK" && f[5] == key) pids.insert(std::stol(f[4]));
    }
    std::string out;
    for (const long pid : pids) {
        std::ifstream comm(fmt::format("/proc/{}/comm", pid));
        std::string name;
        std::getline(comm, name);
        out += fmt::format("{}{}{}", out.empty() ? "" : ", ", pid, name.empty() ? "" : " (" + name + ")");
    }
    return out.empty() ? "unknown processes" : "pid " + out;
}

}  // namespace cuzk::daemon
