// Who holds a shared resource, stated so that a reused pid is not mistaken for the original holder: a pid
// plus the process start time (clock ticks since boot, field 22 of /proc/<pid>/stat).
// Limitation: pids are compared in the caller's pid namespace; all processes sharing a segment must live
// in one pid namespace (one host, no separate container pid namespaces).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace cuzk::ipc {

struct process_identity {
    pid_t pid = 0;
    std::uint64_t start_time = 0;  // clock ticks since boot; 0 = unknown (liveness then rests on the pid alone)
};

// The calling process. No system call after the first call in a thread: cached per thread, refreshed in
// the child after fork() (a pthread_atfork handler; a raw clone() bypasses it and is not supported).
process_identity current_process();

// The calling thread's kernel id (gettid), cached per thread and refreshed after fork.
std::uint32_t current_thread_id();

// Start time of |pid| from /proc, or nullopt when the process does not exist (or /proc is unreadable).
std::optional<std::uint64_t> process_start_time(pid_t pid);

// False when |pid| no longer exists (kill(pid, 0) == ESRCH), is a zombie (it will never act again), or its
// start time differs from |start_time| (the pid was reused). |start_time| == 0 skips the last check.
bool process_alive(pid_t pid, std::uint64_t start_time);
inline bool process_alive(const process_identity& who) { return process_alive(who.pid, who.start_time); }

}  // namespace cuzk::ipc
