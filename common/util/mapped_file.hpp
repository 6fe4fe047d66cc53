// A read-only memory mapping of a whole file, released on destruction. Parameter files reach tens of
// GiB: mapping lets the kernel page them in on demand and share them between processes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>

namespace cuzk::util {

class mapped_file {
public:
    mapped_file() = default;
    // Throws std::system_error naming the path when the file cannot be opened or mapped.
    explicit mapped_file(const std::filesystem::path& path);
    ~mapped_file();
    mapped_file(mapped_file&& other) noexcept;
    mapped_file& operator=(mapped_file&& other) noexcept;
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;

    // An empty file maps to an empty span (mmap refuses length 0).
    std::span<const uint8_t> bytes() const { return {data_, size_}; }
    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

private:
    void release() noexcept;

    std::filesystem::path path_;
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace cuzk::util
