// A named shared-memory segment, created or opened by name and mapped whole: POSIX shared memory
// (shm_open, i.e. /dev/shm on Linux) by default, or a file in a configured directory (a larger tmpfs or a
// hugetlbfs mount on production boxes). Creation reserves the memory up front (fallocate), so a segment
// that does not fit fails here with a message naming the size and the directory, instead of a SIGBUS on
// first touch of a page that tmpfs cannot back.
#pragma once

#include <boost/interprocess/mapped_region.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace cuzk::ipc {

struct segment_location {
    std::string name;                 // [A-Za-z0-9._-], 1..200 characters; unique per ring / lock
    std::filesystem::path directory;  // empty: POSIX shared memory; else the directory holding the file
    mode_t mode = 0600;               // 0660 with |group| to share with the group's members
    std::string group;                // non-empty: the segment's group is set to it at creation
    std::string service;              // recorded in the header at creation (shm_header::service_words)

    std::filesystem::path backing_directory() const;  // /dev/shm or |directory|
    std::filesystem::path backing_path() const;       // the file that holds the segment
};

class shm_segment {
public:
    // Throws shm_error: already_exists, no_space, permission_denied, invalid_argument, system_error.
    static shm_segment create(const segment_location& where, std::size_t bytes);

    // Throws shm_error: not_found, permission_denied, not_initialized (smaller than |min_bytes| after
    // |creation_wait|: its creator is still sizing it, or died doing so), system_error.
    static shm_segment open(const segment_location& where, std::size_t min_bytes,
                            std::chrono::milliseconds creation_wait = std::chrono::seconds(5));

    // open() plus the header protocol of shm_header.hpp: waits (up to |creation_wait|) until the creator
    // has published the header, then checks magic, layout version and size. Throws shm_error.
    static shm_segment attach(const segment_location& where, std::uint64_t magic, std::uint32_t layout_version,
                              std::chrono::milliseconds creation_wait = std::chrono::seconds(10));

    // True when a segment was removed. Processes that have it mapped keep their mapping.
    static bool remove(const segment_location& where);

    shm_segment(shm_segment&&) noexcept = default;
    shm_segment& operator=(shm_segment&&) noexcept = default;

    std::byte* data() const noexcept { return static_cast<std::byte*>(region_.get_address()); }
    std::size_t size() const noexcept { return region_.get_size(); }
    const segment_location& location() const noexcept { return where_; }

private:
    shm_segment(segment_location where, boost::interprocess::mapped_region region)
        : where_(std::move(where)), region_(std::move(region)) {}

    segment_location where_;
    boost::interprocess::mapped_region region_;
};

// "1.5 GiB", "512 KiB", "100 B": sizes in messages.
std::string format_bytes(std::uint64_t bytes);

}  // namespace cuzk::ipc
