#include "daemon/service_segment.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

#include "common/util/errors.hpp"
#include "ipc/shm_header.hpp"

namespace cuzk::daemon {

namespace {

std::uint64_t fnv1a(std::string_view text) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ull;
    }
    return h;
}

}  // namespace

std::string service_name(const config& c) {
    std::error_code ec;
    auto path = std::filesystem::weakly_canonical(c.runtime.dir, ec);
    std::string name = ec ? c.runtime.dir.string() : path.string();
    if (name.size() <= ipc::service_name_bytes) return name;
    // Head, '#', 16 hex digits of the whole path's digest: within the header and distinct per directory.
    const auto digest = fmt::format("#{:016x}", fnv1a(name));
    return name.substr(0, ipc::service_name_bytes - digest.size()) + digest;
}

bool service_running(const std::filesystem::path& runtime_dir) {
    std::error_code ec;
    if (!std::filesystem::exists(runtime_dir, ec)) return ec.value() != 0;
    std::filesystem::directory_iterator it(runtime_dir, ec);
    if (ec) return true;
    for (const auto& entry : it) {
        if (entry.path().extension() != ".lock") continue;
        const int fd = ::open(entry.path().c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return true;
        const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
        ::close(fd);  // drops the shared lock if it was granted
        if (held) return true;
    }
    return false;
}

void claim_for_service(std::string_view what, std::string_view key, const std::string& recorded,
                       const std::string& self, const std::function<void()>& take_over) {
    if (recorded == self) return;
    if (recorded.empty()) {
        take_over();
        return;
    }
    // A shortened name (with its digest) is not a path to look at: such a service counts as running.
    const bool shortened = recorded.size() == ipc::service_name_bytes && recorded.find('#') != std::string::npos;
    if (shortened || service_running(recorded)) {
        throw input_error(fmt::format("{} belongs to the service of runtime directory {}, which is running; this "
                                      "service's runtime directory is {}: give each service its own {}",
                                      what, recorded, self, key));
    }
    spdlog::warn("{} belonged to the service of runtime directory {}, which no longer runs: taken over by this "
                 "service ({})",
                 what, recorded, self);
    take_over();
}

}  // namespace cuzk::daemon
