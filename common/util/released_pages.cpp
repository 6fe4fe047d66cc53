#include "common/util/released_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

namespace cuzk::util {

released_pages::released_pages(const void* data, std::size_t bytes, std::size_t min_bytes) {
    if (data == nullptr) return;
    const long page_size = ::sysconf(_SC_PAGESIZE);
    const auto page = static_cast<std::uintptr_t>(page_size > 0 ? page_size : 4096);
    const auto at = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t begin = (at + page - 1) & ~(page - 1);
    const std::uintptr_t end = (at + bytes) & ~(page - 1);
    if (end <= begin || end - begin < min_bytes) return;
    void* const p = reinterpret_cast<void*>(begin);
    const std::size_t n = end - begin;
    // Inaccessible before dropped: no reader can see the zeros a dropped page reads as.
    if (::mprotect(p, n, PROT_NONE) != 0) {
        error_ = std::string("mprotect: ") + std::strerror(errno);
        return;
    }
    if (::madvise(p, n, MADV_DONTNEED) != 0) {
        error_ = std::string("madvise: ") + std::strerror(errno);
        (void)::mprotect(p, n, PROT_READ | PROT_WRITE);
        return;
    }
    begin_ = p;
    bytes_ = n;
}

void released_pages::restore() noexcept {
    if (begin_ != nullptr) (void)::mprotect(begin_, bytes_, PROT_READ | PROT_WRITE);
    begin_ = nullptr;
    bytes_ = 0;
}

released_pages::~released_pages() { restore(); }

released_pages::released_pages(released_pages&& other) noexcept
    : begin_(std::exchange(other.begin_, nullptr)), bytes_(std::exchange(other.bytes_, 0)),
      error_(std::move(other.error_)) {}

released_pages& released_pages::operator=(released_pages&& other) noexcept {
    if (this != &other) {
        restore();
        begin_ = std::exchange(other.begin_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
        error_ = std::move(other.error_);
    }
    return *this;
}

}  // namespace cuzk::util
