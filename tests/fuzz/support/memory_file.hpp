// A file holding the fuzz input for decoders that take a path (a .params file is mapped, a TOML file read by
// toml++): an anonymous memory file (memfd) reached as /proc/self/fd/N, so a run of millions of inputs touches
// no disk and leaves nothing behind.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <string>

namespace cuzk::fuzz {

class memory_file {
public:
    memory_file() : fd_(::memfd_create("cuzk-fuzz", MFD_CLOEXEC)) {
        if (fd_ < 0) {
            std::perror("memfd_create");
            std::abort();
        }
    }
    ~memory_file() { ::close(fd_); }
    memory_file(const memory_file&) = delete;
    memory_file& operator=(const memory_file&) = delete;

    // Replaces the content with |size| bytes.
    void assign(const std::uint8_t* data, std::size_t size) {
        if (::ftruncate(fd_, 0) != 0) fail("ftruncate");
        for (std::size_t done = 0; done < size;) {
            const auto n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) fail("pwrite");
            done += static_cast<std::size_t>(n);
        }
    }

    std::filesystem::path path() const { return "/proc/self/fd/" + std::to_string(fd_); }

private:
    [[noreturn]] static void fail(const char* call) {
        std::perror(call);
        std::abort();
    }
    int fd_;
};

}  // namespace cuzk::fuzz
