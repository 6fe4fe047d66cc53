#include "ipc/shm_segment.hpp"

#include "ipc/shm_error.hpp"
#include "ipc/shm_header.hpp"

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <fmt/format.h>

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

namespace cuzk::ipc {
namespace bip = boost::interprocess;
namespace {

constexpr std::size_t max_name_length = 200;

void check_name(const segment_location& where) {
    const bool ok = !where.name.empty() && where.name.size() <= max_name_length &&
                    where.name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
                        std::string::npos &&
                    where.name != "." && where.name != "..";
    if (!ok) {
        throw shm_error(shm_errc::invalid_argument,
                        fmt::format("invalid shared-memory segment name '{}': use 1 to {} characters from "
                                    "[A-Za-z0-9._-]",
                                    where.name, max_name_length));
    }
}

std::string errno_text(int error_number) { return fmt::format("{} (errno {})", std::strerror(error_number), error_number); }

[[noreturn]] void throw_errno(int error_number, const std::string& action, const segment_location& where) {
    throw shm_error(classify_errno(error_number),
                    fmt::format("{} shared-memory segment '{}' ({}): {}", action, where.name,
                                where.backing_path().string(), errno_text(error_number)),
                    error_number);
}

[[noreturn]] void throw_boost(const bip::interprocess_exception& e, const std::string& action,
                              const segment_location& where) {
    const int error_number = e.get_native_error();
    if (error_number != 0) throw_errno(error_number, action, where);
    throw shm_error(shm_errc::system_error, fmt::format("{} shared-memory segment '{}' ({}): {}", action, where.name,
                                                        where.backing_path().string(), e.what()));
}

[[noreturn]] void throw_no_space(const segment_location& where, std::size_t bytes, std::uint64_t available,
                                 int error_number) {
    throw shm_error(shm_errc::no_space,
                    fmt::format("shared-memory segment '{}' needs {} ({} bytes) but {} has only {} free: lower "
                                "the slot count or slot size, free space in {}, or place the segment in a "
                                "larger tmpfs/hugetlbfs directory",
                                where.name, format_bytes(bytes), bytes, where.backing_directory().string(),
                                format_bytes(available), where.backing_directory().string()),
                    error_number);
}

std::uint64_t available_bytes(const segment_location& where) {
    struct statvfs fs {};
    if (::statvfs(where.backing_directory().c_str(), &fs) != 0) return UINT64_MAX;  // unknown: let fallocate decide
    return static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
}

gid_t group_id(const segment_location& where) {
    std::vector<char> buffer(16384);
    group entry{};
    group* found = nullptr;
    const int rc = ::getgrnam_r(where.group.c_str(), &entry, buffer.data(), buffer.size(), &found);
    if (rc != 0 || found == nullptr) {
        throw shm_error(shm_errc::invalid_argument,
                        fmt::format("shared-memory segment '{}': group '{}' does not exist", where.name, where.group));
    }
    return found->gr_gid;
}

// Mode (again: the umask applied at creation), group, and the memory itself. Reserving with fallocate
// makes ENOSPC an error here; a plain ftruncate on tmpfs succeeds and the shortfall turns into SIGBUS later.
void prepare(int fd, const segment_location& where, std::size_t bytes) {
    if (::fchmod(fd, where.mode) != 0) throw_errno(errno, "cannot set the mode of", where);
    if (!where.group.empty() && ::fchown(fd, static_cast<uid_t>(-1), group_id(where)) != 0) {
        const int error_number = errno;
        throw shm_error(shm_errc::permission_denied,
                        fmt::format("cannot give shared-memory segment '{}' ({}) to group '{}': {}; the process "
                                    "must be a member of that group",
                                    where.name, where.backing_path().string(), where.group, errno_text(error_number)),
                        error_number);
    }
    if (::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) != 0) {
        const int error_number = errno;
        if (error_number == ENOSPC || error_number == ENOMEM || error_number == EFBIG) {
            throw_no_space(where, bytes, available_bytes(where), error_number);
        }
        if (error_number != EOPNOTSUPP && error_number != ENOSYS) throw_errno(error_number, "cannot reserve", where);
        // A filesystem without fallocate: size it, space was checked with statvfs before.
        if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) throw_errno(errno, "cannot size", where);
    }
}

// The creator is sizing the segment between its creation and its fallocate; an opener waits for that.
template <typename SizeOf>
void wait_for_size(const segment_location& where, std::size_t min_bytes, std::chrono::milliseconds creation_wait,
                   SizeOf size_of) {
    const auto deadline = std::chrono::steady_clock::now() + creation_wait;
    for (;;) {
        const std::uint64_t size = size_of();
        if (size >= min_bytes) return;
        if (std::chrono::steady_clock::now() >= deadline) {
            throw shm_error(shm_errc::not_initialized,
                            fmt::format("shared-memory segment '{}' ({}) is {} bytes, less than the {} expected, "
                                        "after waiting {} ms: its creator died while creating it, or it was made "
                                        "by something else; remove it and restart",
                                        where.name, where.backing_path().string(), size, min_bytes,
                                        creation_wait.count()));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace

std::filesystem::path segment_location::backing_directory() const {
    return directory.empty() ? std::filesystem::path("/dev/shm") : directory;
}

std::filesystem::path segment_location::backing_path() const { return backing_directory() / name; }

shm_segment shm_segment::create(const segment_location& where, std::size_t bytes) {
    check_name(where);
    if (bytes == 0) {
        throw shm_error(shm_errc::invalid_argument, fmt::format("shared-memory segment '{}': size 0", where.name));
    }
    if (const auto available = available_bytes(where); available < bytes) throw_no_space(where, bytes, available, 0);

    if (where.directory.empty()) {
        bip::shared_memory_object object;
        try {
            object = bip::shared_memory_object(bip::create_only, where.name.c_str(), bip::read_write,
                                               bip::permissions(where.mode));
        } catch (const bip::interprocess_exception& e) {
            throw_boost(e, "cannot create", where);
        }
        try {
            prepare(object.get_mapping_handle().handle, where, bytes);
            return shm_segment(where, bip::mapped_region(object, bip::read_write));
        } catch (const bip::interprocess_exception& e) {
            bip::shared_memory_object::remove(where.name.c_str());
            throw_boost(e, "cannot map", where);
        } catch (...) {
            bip::shared_memory_object::remove(where.name.c_str());
            throw;
        }
    }

    const auto path = where.backing_path();
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, where.mode);
    if (fd < 0) throw_errno(errno, "cannot create", where);
    try {
        prepare(fd, where, bytes);
    } catch (...) {
        ::close(fd);
        std::filesystem::remove(path);
        throw;
    }
    ::close(fd);
    try {
        bip::file_mapping file(path.c_str(), bip::read_write);
        return shm_segment(where, bip::mapped_region(file, bip::read_write));
    } catch (const bip::interprocess_exception& e) {
        std::filesystem::remove(path);
        throw_boost(e, "cannot map", where);
    }
}

shm_segment shm_segment::open(const segment_location& where, std::size_t min_bytes,
                              std::chrono::milliseconds creation_wait) {
    check_name(where);
    try {
        if (where.directory.empty()) {
            bip::shared_memory_object object(bip::open_only, where.name.c_str(), bip::read_write);
            wait_for_size(where, min_bytes, creation_wait, [&] {
                bip::offset_t size = 0;
                return object.get_size(size) ? static_cast<std::uint64_t>(size) : 0;
            });
            return shm_segment(where, bip::mapped_region(object, bip::read_write));
        }
        const auto path = where.backing_path();
        bip::file_mapping file(path.c_str(), bip::read_write);
        wait_for_size(where, min_bytes, creation_wait, [&] {
            std::error_code ignored;
            const auto size = std::filesystem::file_size(path, ignored);
            return ignored ? 0 : static_cast<std::uint64_t>(size);
        });
        return shm_segment(where, bip::mapped_region(file, bip::read_write));
    } catch (const bip::interprocess_exception& e) {
        throw_boost(e, "cannot open", where);
    }
}

shm_segment shm_segment::attach(const segment_location& where, std::uint64_t magic, std::uint32_t layout_version,
                                std::chrono::milliseconds creation_wait) {
    const auto deadline = std::chrono::steady_clock::now() + creation_wait;
    auto segment = open(where, sizeof(shm_header), creation_wait);
    for (;;) {
        try {
            validate_header(segment.data(), segment.size(), magic, layout_version, where.name);
            return segment;
        } catch (const shm_error& e) {
            if (e.code() != shm_errc::not_initialized || std::chrono::steady_clock::now() >= deadline) throw;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

bool shm_segment::remove(const segment_location& where) {
    check_name(where);
    if (where.directory.empty()) return bip::shared_memory_object::remove(where.name.c_str());
    std::error_code ignored;
    return std::filesystem::remove(where.backing_path(), ignored);
}

std::string format_bytes(std::uint64_t bytes) {
    constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, units[unit]);
}

}  // namespace cuzk::ipc
