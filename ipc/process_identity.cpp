#include "ipc/process_identity.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>

namespace cuzk::ipc {
namespace {

struct proc_stat {
    char state = '?';
    std::uint64_t start_time = 0;
};

// /proc/<pid>/stat is "pid (comm) state ppid ... starttime ..."; comm may hold spaces and parentheses, so
// fields are counted from the last ')'. After it, index 0 is field 3 (state) and index 19 is field 22.
std::optional<proc_stat> read_proc_stat(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    if (!in) return std::nullopt;
    std::string line;
    std::getline(in, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(line.substr(close + 1));
    proc_stat out;
    std::string field;
    for (int index = 0; index <= 19; ++index) {
        if (!(fields >> field)) return std::nullopt;
        if (index == 0) out.state = field.empty() ? '?' : field[0];
        if (index == 19) {
            try {
                out.start_time = std::stoull(field);
            } catch (const std::exception&) {
                return std::nullopt;
            }
        }
    }
    return out;
}

// Bumped in the child after every fork(), so that per-thread caches of pid and tid are refreshed there
// without a system call on every use (the ring and the lock ask for them on every transition).
std::atomic<std::uint64_t> fork_generation{1};

void on_fork_child() noexcept {
    fork_generation.fetch_add(1, std::memory_order_relaxed);  // relaxed: the child has one thread right now
}

std::uint64_t current_fork_generation() {
    static const bool registered = (::pthread_atfork(nullptr, nullptr, on_fork_child), true);
    (void)registered;
    return fork_generation.load(std::memory_order_relaxed);  // relaxed: only ever compared with itself
}

}  // namespace

process_identity current_process() {
    thread_local std::uint64_t generation = 0;
    thread_local process_identity cached{};
    if (const auto now = current_fork_generation(); generation != now) {
        cached.pid = ::getpid();
        cached.start_time = process_start_time(cached.pid).value_or(0);
        generation = now;
    }
    return cached;
}

std::uint32_t current_thread_id() {
    thread_local std::uint64_t generation = 0;
    thread_local std::uint32_t cached = 0;
    if (const auto now = current_fork_generation(); generation != now) {
        cached = static_cast<std::uint32_t>(::gettid());
        generation = now;
    }
    return cached;
}

std::optional<std::uint64_t> process_start_time(pid_t pid) {
    const auto stat = read_proc_stat(pid);
    if (!stat) return std::nullopt;
    return stat->start_time;
}

bool process_alive(pid_t pid, std::uint64_t start_time) {
    if (pid <= 0) return false;
    if (::kill(pid, 0) != 0 && errno == ESRCH) return false;  // EPERM: it exists under another user
    const auto stat = read_proc_stat(pid);
    if (!stat) {
        // Gone between the probe and the read, unless /proc itself is unavailable (then the probe is all
        // we know, and it said the process exists).
        return ::access("/proc/self/stat", R_OK) != 0;
    }
    if (stat->state == 'Z' || stat->state == 'X') return false;
    return start_time == 0 || stat->start_time == start_time;
}

}  // namespace cuzk::ipc
