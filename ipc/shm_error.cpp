#include "ipc/shm_error.hpp"

#include <cerrno>

namespace cuzk::ipc {

std::string_view to_string(shm_errc code) noexcept {
    switch (code) {
        case shm_errc::invalid_argument: return "invalid_argument";
        case shm_errc::already_exists: return "already_exists";
        case shm_errc::not_found: return "not_found";
        case shm_errc::permission_denied: return "permission_denied";
        case shm_errc::no_space: return "no_space";
        case shm_errc::incompatible: return "incompatible";
        case shm_errc::not_initialized: return "not_initialized";
        case shm_errc::system_error: return "system_error";
    }
    return "unknown";
}

shm_errc classify_errno(int error_number) noexcept {
    switch (error_number) {
        case EEXIST: return shm_errc::already_exists;
        case ENOENT: return shm_errc::not_found;
        case EACCES:
        case EPERM: return shm_errc::permission_denied;
        case ENOSPC:
        case ENOMEM:
        case EFBIG: return shm_errc::no_space;
        case EINVAL:
        case ENAMETOOLONG: return shm_errc::invalid_argument;
        default: return shm_errc::system_error;
    }
}

}  // namespace cuzk::ipc
