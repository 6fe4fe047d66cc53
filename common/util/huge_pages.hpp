// Asks the kernel to back a large buffer with transparent huge pages (madvise MADV_HUGEPAGE on the whole pages
// inside it), so that filling it takes one fault per 2 MiB instead of one per 4 KiB: at GB sizes the faults, and
// the kernel zeroing pages one by one, otherwise cost as much as the work that fills them. A hint only: nothing
// happens below |min_bytes|, where the kernel has transparent huge pages off, or where it refuses; the contents
// never change, and pages never touched stay unallocated.
#pragma once

#include <cstddef>

namespace cuzk::util {

inline constexpr std::size_t huge_page_hint_min_bytes = std::size_t(64) << 20;

void advise_huge_pages(const void* data, std::size_t bytes, std::size_t min_bytes = huge_page_hint_min_bytes);

}  // namespace cuzk::util
