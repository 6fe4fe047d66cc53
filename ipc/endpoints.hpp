// Where the ZeroMQ sockets of the pipeline live: ipc:// endpoints (Unix sockets) in a runtime directory by
// default; tcp:// only when configured (ZeroMQ accepts it as is; these helpers only build ipc:// ones).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::ipc {

// Default socket names (one per receiving role); daemons may be configured otherwise.
namespace socket_names {
inline constexpr std::string_view api = "assemblerd";        // clients -> assemblerd (SUBMIT, AWAIT, STATUS, CANCEL)
inline constexpr std::string_view results = "assemblerd-results";  // synthd, gpud -> assemblerd
inline constexpr std::string_view synthd = "synthd";         // assemblerd -> synthd (JOB, CANCEL)
}  // namespace socket_names

// One gpud per GPU, all on one ring: each binds its own socket, "gpud-<gpu>" (assemblerd -> gpud: CANCEL;
// clients: STATUS_REQUEST), and holds its own instance lock of that name.
std::string gpud_socket_name(int gpu);

// The GPUs whose gpud socket ("gpud-<gpu>.sock") exists in |runtime_dir|, ascending; empty when the
// directory does not exist or cannot be read. A socket file left by a gpud killed with SIGKILL is listed too: a request to it
// gets no answer, and a message sent to it waits for the gpud that binds it again.
std::vector<int> gpud_sockets_in(const std::filesystem::path& runtime_dir);

// $CUZK_RUNTIME_DIR if set; else $XDG_RUNTIME_DIR/cuzk (systemd user sessions); else /run/cuzk when /run
// is writable (root, or systemd's RuntimeDirectory=cuzk); else /tmp/cuzk-<uid>.
std::filesystem::path default_runtime_dir();

// Who may connect to a bound ipc:// endpoint. The runtime directory lets the service's group in (mode 0750): the
// front door (assemblerd's request socket, which takes SUBMIT, AWAIT, CANCEL and STATUS_REQUEST only, and the gRPC
// socket) is the group's too (mode 0660); the sockets between the stages (synthd's, gpud's, the results socket)
// are the service user's alone (0600), so no client can send a stage's messages (a forged PARTITION_FAILED).
enum class socket_access { owner_only, group };
// Sets the socket file's mode once bound; other endpoints (tcp://) are left as they are. Throws
// std::runtime_error naming the socket when chmod fails.
void set_socket_access(const std::string& endpoint, socket_access access);
inline void restrict_to_owner(const std::string& endpoint) { set_socket_access(endpoint, socket_access::owner_only); }

// Creates |dir| (and parents) with mode 0750 when missing. Refuses (std::runtime_error, naming the path)
// a directory owned by another user or writable by others: anyone who can create sockets there could
// impersonate a stage.
void ensure_runtime_dir(const std::filesystem::path& dir);

// "ipc://<dir>/<name>.sock". Throws std::invalid_argument when the socket path exceeds the 107 bytes a Unix
// socket address can hold (the message names the path and suggests a shorter runtime directory).
std::string ipc_endpoint(const std::filesystem::path& runtime_dir, std::string_view socket_name);

// The filesystem path of an ipc:// endpoint; empty for any other transport.
std::filesystem::path ipc_socket_path(std::string_view endpoint);

}  // namespace cuzk::ipc
