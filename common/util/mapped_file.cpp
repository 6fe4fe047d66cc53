#include "common/util/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace cuzk::util {

namespace {

[[noreturn]] void throw_errno(const char* what, const std::filesystem::path& path) {
    throw std::system_error(errno, std::generic_category(), std::string(what) + " " + path.string());
}

}  // namespace

mapped_file::mapped_file(const std::filesystem::path& path) : path_(path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_errno("cannot open", path);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int saved = errno;
        ::close(fd);
        errno = saved;
        throw_errno("cannot stat", path);
    }
    size_ = size_t(st.st_size);
    if (size_ > 0) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int saved = errno;
            ::close(fd);
            errno = saved;
            throw_errno("cannot mmap", path);
        }
        data_ = static_cast<const uint8_t*>(p);
    }
    // The mapping keeps the file referenced; the descriptor is no longer needed.
    ::close(fd);
}

mapped_file::~mapped_file() { release(); }

mapped_file::mapped_file(mapped_file&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

mapped_file& mapped_file::operator=(mapped_file&& other) noexcept {
    if (this != &other) {
        release();
        path_ = std::move(other.path_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

void mapped_file::release() noexcept {
    if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
    data_ = nullptr;
    size_ = 0;
}

}  // namespace cuzk::util
