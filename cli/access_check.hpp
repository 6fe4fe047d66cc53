// Permission problems said plainly: which path refused this user (the socket or file itself, or a directory above
// it without search permission), whose it is and with what mode, and the likely fix (join the group that has the
// permission, run as the service user, or make the runtime directory group-searchable). The daemons' sockets are
// reached through a ZeroMQ connect, which retries an EACCES silently until the timeout: without this check a
// permission problem looked like a service that does not run (exit 3) or an internal error (exit 4).
#pragma once

#include <filesystem>
#include <string>

namespace cuzk::cli {

enum class access_need {
    read,     // reading a file
    write,    // writing or creating a file
    connect,  // connecting to a unix socket: write permission on it
    search,   // entering a directory (listing the sockets of a runtime directory)
    any,      // not known (a filesystem_error): read or write, whichever is refused
};

// The message for an EACCES / EPERM on |path|: the refusing path, its owner, group and mode, the permission the
// operation needs, and the fix. Names this user too.
std::string permission_message(const std::filesystem::path& path, access_need need);

// Throws permission_denied (cli/client_errors.hpp) when this user may not connect to the unix socket |socket|
// (no write permission on it, or no search permission on a directory above it). A socket that does not exist
// passes: the daemon is not running, which the caller's request reports.
void check_socket_access(const std::filesystem::path& socket);

// The same for a runtime directory this user must search (`cuzk status` lists its sockets).
void check_directory_access(const std::filesystem::path& directory);

}  // namespace cuzk::cli
