// Failures of shared-memory segments, as an enum a caller can branch on (e.g. open_or_create retries on
// already_exists) plus a message with the full context: segment name, path, sizes, errno text, and what to do.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace cuzk::ipc {

enum class shm_errc {
    invalid_argument,   // bad name, zero sizes, a layout that overflows
    already_exists,     // create: a segment of that name exists
    not_found,          // open: no segment of that name
    permission_denied,  // mode/owner/group forbid it, or chown to the configured group failed
    no_space,           // the segment does not fit its directory (tmpfs / hugetlbfs size)
    incompatible,       // bad magic, other layout version, or sizes that differ from the expected ones
    not_initialized,    // exists but its creator never published the header (it died while creating it)
    system_error,       // any other errno
};

std::string_view to_string(shm_errc code) noexcept;

// errno -> the enum (EEXIST -> already_exists, ENOENT -> not_found, EACCES/EPERM -> permission_denied,
// ENOSPC/ENOMEM/EFBIG -> no_space, anything else -> system_error).
shm_errc classify_errno(int error_number) noexcept;

class shm_error : public std::runtime_error {
public:
    shm_error(shm_errc code, std::string message, int error_number = 0)
        : std::runtime_error(std::move(message)), code_(code), errno_(error_number) {}
    shm_errc code() const noexcept { return code_; }
    int error_number() const noexcept { return errno_; }  // 0 when the failure is not a system call's

private:
    shm_errc code_;
    int errno_;
};

}  // namespace cuzk::ipc
