// A file written front to back with stdio, every failure thrown as std::system_error naming the path: the one
// writer of the parameter, verifying-key and matrix files. close() reports what fclose finds (a full disk shows
// there, when the buffer is flushed); the destructor closes without a word, for the paths that already threw.
#pragma once

#include <cstddef>
#include <cstdio>
#include <filesystem>

namespace cuzk::util {

class file_writer {
public:
    // Creates or truncates |path|; throws std::system_error ("cannot create <path>") when it cannot.
    explicit file_writer(const std::filesystem::path& path);
    ~file_writer();
    file_writer(const file_writer&) = delete;
    file_writer& operator=(const file_writer&) = delete;

    // Throws std::system_error ("cannot write <path>") on a short write.
    void write(const void* data, std::size_t n);
    // Flushes and closes; throws std::system_error ("cannot close <path>") when that fails; a second call throws
    // std::logic_error.
    void close();
    const std::filesystem::path& path() const { return path_; }

private:
    [[noreturn]] void fail(const char* what) const;
    std::filesystem::path path_;
    std::FILE* f_;
};

}  // namespace cuzk::util
