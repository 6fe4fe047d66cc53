// Which version of a file a cache holds: device, inode, size and modification time. A parameter or verifying key
// file replaced or rewritten since it was loaded has another identity, so the cache loads it again instead of
// proving (or verifying) with the old contents for the life of the process.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace cuzk::daemon {

struct file_identity {
    std::uint64_t device = 0, inode = 0, size = 0;
    std::int64_t mtime_ns = 0;
    friend bool operator==(const file_identity&, const file_identity&) = default;
};

// std::nullopt when the file cannot be stat'ed (gone: a cache then keeps what it has).
inline std::optional<file_identity> identity_of(const std::filesystem::path& path) {
    struct stat s {};
    if (::stat(path.c_str(), &s) != 0) return std::nullopt;
    return file_identity{static_cast<std::uint64_t>(s.st_dev), static_cast<std::uint64_t>(s.st_ino),
                         static_cast<std::uint64_t>(s.st_size),
                         static_cast<std::int64_t>(s.st_mtim.tv_sec) * 1'000'000'000 + s.st_mtim.tv_nsec};
}

}  // namespace cuzk::daemon
