#include "common/util/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace cuzk::util {

void advise_huge_pages(const void* data, std::size_t bytes, std::size_t min_bytes) {
    if (data == nullptr || bytes < min_bytes) return;
    constexpr std::uintptr_t page = 4096;
    const auto at = reinterpret_cast<std::uintptr_t>(data);
    const auto begin = (at + page - 1) & ~(page - 1);
    const auto end = (at + bytes) & ~(page - 1);
    if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace cuzk::util
