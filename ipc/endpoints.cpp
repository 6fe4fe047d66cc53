#include "ipc/endpoints.hpp"

#include <fmt/format.h>

#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace cuzk::ipc {
namespace {

constexpr std::string_view ipc_scheme = "ipc://";
constexpr std::string_view gpud_prefix = "gpud-";
constexpr std::string_view socket_suffix = ".sock";

}  // namespace

std::filesystem::path default_runtime_dir() {
    if (const char* dir = std::getenv("CUZK_RUNTIME_DIR"); dir != nullptr && *dir != '\0') return dir;
    if (const char* dir = std::getenv("XDG_RUNTIME_DIR"); dir != nullptr && *dir != '\0') {
        return std::filesystem::path(dir) / "cuzk";
    }
    if (::access("/run/cuzk", W_OK) == 0 || ::access("/run", W_OK) == 0) return "/run/cuzk";
    return fmt::format("/tmp/cuzk-{}", ::getuid());
}

void ensure_runtime_dir(const std::filesystem::path& dir) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) {
        throw std::runtime_error(fmt::format("cannot create the runtime directory {}: {}; set CUZK_RUNTIME_DIR to a "
                                             "writable directory",
                                             dir.string(), error.message()));
    }
    struct stat info {};
    if (::stat(dir.c_str(), &info) != 0) {
        throw std::runtime_error(fmt::format("cannot stat the runtime directory {}: {}", dir.string(), std::strerror(errno)));
    }
    if (!S_ISDIR(info.st_mode)) throw std::runtime_error(fmt::format("runtime directory {} is not a directory", dir.string()));
    if (info.st_uid != ::getuid()) {
        throw std::runtime_error(fmt::format("runtime directory {} belongs to uid {}, not to this process (uid {}); "
                                             "set CUZK_RUNTIME_DIR to a directory of your own",
                                             dir.string(), info.st_uid, ::getuid()));
    }
    if ((info.st_mode & S_IWOTH) != 0) {
        throw std::runtime_error(fmt::format("runtime directory {} is writable by others (mode {:o}); chmod 0750 it",
                                             dir.string(), info.st_mode & 07777));
    }
    // The group may enter (the API socket is 0660), not create or remove entries; others nothing.
    if ((info.st_mode & 0777) != 0750 && ::chmod(dir.c_str(), 0750) != 0) {
        throw std::runtime_error(fmt::format("cannot chmod 0750 the runtime directory {}: {}", dir.string(),
                                             std::strerror(errno)));
    }
}

void set_socket_access(const std::string& endpoint, socket_access access) {
    constexpr std::string_view scheme = "ipc://";
    if (!endpoint.starts_with(scheme)) return;
    const auto path = endpoint.substr(scheme.size());
    const mode_t mode = access == socket_access::group ? 0660 : 0600;
    if (::chmod(path.c_str(), mode) != 0)
        throw std::runtime_error(fmt::format("cannot chmod {:04o} the socket {}: {}", mode, path, std::strerror(errno)));
}

std::string ipc_endpoint(const std::filesystem::path& runtime_dir, std::string_view socket_name) {
    if (socket_name.empty() || socket_name.find('/') != std::string_view::npos) {
        throw std::invalid_argument(fmt::format("invalid socket name '{}': a plain file name is expected", socket_name));
    }
    const auto path = (runtime_dir / fmt::format("{}.sock", socket_name)).string();
    constexpr std::size_t limit = sizeof(sockaddr_un::sun_path) - 1;
    if (path.size() > limit) {
        throw std::invalid_argument(fmt::format("socket path {} is {} bytes, a Unix socket path holds at most {}: "
                                                "choose a shorter runtime directory (CUZK_RUNTIME_DIR)",
                                                path, path.size(), limit));
    }
    return fmt::format("{}{}", ipc_scheme, path);
}

std::filesystem::path ipc_socket_path(std::string_view endpoint) {
    if (!endpoint.starts_with(ipc_scheme)) return {};
    return std::filesystem::path(endpoint.substr(ipc_scheme.size()));
}

std::string gpud_socket_name(int gpu) { return fmt::format("{}{}", gpud_prefix, gpu); }

std::vector<int> gpud_sockets_in(const std::filesystem::path& runtime_dir) {
    std::vector<int> gpus;
    std::error_code error;  // a directory that cannot be read lists no gpud (never throws: assemblerd's loop calls it)
    for (std::filesystem::directory_iterator it(runtime_dir, error), end; !error && it != end; it.increment(error)) {
        const auto name = it->path().filename().string();
        if (!name.starts_with(gpud_prefix) || !name.ends_with(socket_suffix)) continue;
        const auto digits = std::string_view(name).substr(gpud_prefix.size(), name.size() - gpud_prefix.size() -
                                                                                  socket_suffix.size());
        int gpu = -1;
        const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), gpu);
        // Exactly the names gpud_socket_name() makes: "gpud-01.sock" or "gpud-1x.sock" are someone else's.
        if (parsed.ec != std::errc{} || gpu < 0 || fmt::format("{}{}", gpud_socket_name(gpu), socket_suffix) != name)
            continue;
        gpus.push_back(gpu);
    }
    std::sort(gpus.begin(), gpus.end());
    return gpus;
}

}  // namespace cuzk::ipc
