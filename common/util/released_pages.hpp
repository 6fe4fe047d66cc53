// Gives the physical pages of a large host buffer back to the kernel while its address range stays reserved:
// gpud's CUDA backend does so with the parameters' points once they are on the device (or packed for streaming),
// where the host copy is never read again (tens of GB at 32 GiB). The whole pages inside the range are made
// inaccessible first (mprotect PROT_NONE), then dropped (madvise MADV_DONTNEED): a read that was not expected
// faults at once (SIGSEGV) rather than finding zeros and making a wrong proof. The destructor makes them readable
// and writable again (zero-filled on first touch), so the buffer's owner may free it whichever allocator gave it.
// The owner keeps its size and address, which is how the backend still knows the set it belongs to.
// Linux only; where the kernel refuses, nothing is released and error() says why (the buffer stays as it was).
#pragma once

#include <cstddef>
#include <string>

namespace cuzk::util {

class released_pages {
public:
    released_pages() = default;
    // Releases the whole pages inside [data, data + bytes); none where fewer than |min_bytes| would go.
    released_pages(const void* data, std::size_t bytes, std::size_t min_bytes = std::size_t(1) << 20);
    ~released_pages();
    released_pages(released_pages&& other) noexcept;
    released_pages& operator=(released_pages&& other) noexcept;
    released_pages(const released_pages&) = delete;
    released_pages& operator=(const released_pages&) = delete;

    std::size_t bytes() const { return bytes_; }  // given back (0: none)
    const std::string& error() const { return error_; }  // why none, where the kernel refused

private:
    void restore() noexcept;
    void* begin_ = nullptr;
    std::size_t bytes_ = 0;
    std::string error_;
};

}  // namespace cuzk::util
