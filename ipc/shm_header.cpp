#include "ipc/shm_header.hpp"

#include "ipc/clock.hpp"
#include "ipc/shm_error.hpp"

#include <fmt/format.h>

#include <new>

namespace cuzk::ipc {
namespace {

std::string magic_text(std::uint64_t magic) {
    std::string text;
    for (int i = 0; i < 8; ++i) {
        const auto c = static_cast<char>((magic >> (8 * i)) & 0xff);
        text += (c >= 0x20 && c < 0x7f) ? c : '.';
    }
    return text;
}

}  // namespace

shm_header& publish_header(void* where, const header_layout& layout) {
    auto* header = new (where) shm_header{};
    header->layout_version = layout.layout_version;
    header->header_bytes = sizeof(shm_header);
    header->segment_bytes = layout.segment_bytes;
    header->slot_count = layout.slot_count;
    header->slot_bytes = layout.slot_bytes;
    header->created_ms = realtime_ms();
    set_service(*header, layout.service);
    const auto self = current_process();
    // Relaxed: published by the release store of |magic| below.
    header->owner_pid.store(self.pid, std::memory_order_relaxed);
    header->owner_start_time.store(self.start_time, std::memory_order_relaxed);
    // Release: every write above, and the caller's initialisation of the rest of the segment, happen-before
    // the acquire load of a nonzero magic in validate_header.
    header->magic.store(layout.magic, std::memory_order_release);
    return *header;
}

const shm_header& validate_header(const void* where, std::size_t mapped_bytes, std::uint64_t magic,
                                  std::uint32_t layout_version, std::string_view segment) {
    if (mapped_bytes < sizeof(shm_header)) {
        throw shm_error(shm_errc::not_initialized,
                        fmt::format("shared-memory segment '{}' is {} bytes, smaller than its {}-byte header: its "
                                    "creator has not sized it yet or died doing so; remove it and restart",
                                    segment, mapped_bytes, sizeof(shm_header)));
    }
    const auto& header = *std::launder(static_cast<const shm_header*>(where));
    // Acquire: pairs with the creator's release store, making the fields below visible.
    const auto found = header.magic.load(std::memory_order_acquire);
    if (found == 0) {
        // The owner pid is read relaxed: it is only quoted in the message, and may be 0 if not written yet.
        throw shm_error(shm_errc::not_initialized,
                        fmt::format("shared-memory segment '{}' has no published header (creator pid {} still "
                                    "initialising it, or died doing so); remove it and restart",
                                    segment, header.owner_pid.load(std::memory_order_relaxed)));
    }
    if (found != magic) {
        throw shm_error(shm_errc::incompatible,
                        fmt::format("shared-memory segment '{}' has magic '{}', expected '{}': it belongs to "
                                    "something else; choose another name or remove it",
                                    segment, magic_text(found), magic_text(magic)));
    }
    if (header.layout_version != layout_version || header.header_bytes != sizeof(shm_header)) {
        throw shm_error(shm_errc::incompatible,
                        fmt::format("shared-memory segment '{}' has layout version {} (header {} bytes), this "
                                    "build expects version {} (header {} bytes): stop every process using it, "
                                    "remove it, and restart",
                                    segment, header.layout_version, header.header_bytes, layout_version,
                                    sizeof(shm_header)));
    }
    if (header.segment_bytes > mapped_bytes) {
        throw shm_error(shm_errc::incompatible,
                        fmt::format("shared-memory segment '{}' declares {} bytes but only {} are mapped",
                                    segment, header.segment_bytes, mapped_bytes));
    }
    return header;
}

std::string service_of(const shm_header& header) {
    std::string name;
    for (const auto& word : header.service_words) {
        // Relaxed: a name is written whole before |magic| is published, or by a takeover that every reader of it
        // after the takeover is ordered with by its own start (see daemon/service_segment.hpp).
        const auto w = word.load(std::memory_order_relaxed);
        for (int i = 0; i < 8; ++i) {
            const auto c = static_cast<char>((w >> (8 * i)) & 0xff);
            if (c == '\0') return name;
            name += c;
        }
    }
    return name;
}

void set_service(shm_header& header, std::string_view service) noexcept {
    for (std::size_t k = 0; k < std::size(header.service_words); ++k) {
        std::uint64_t w = 0;
        for (std::size_t i = 0; i < 8; ++i) {
            const auto at = 8 * k + i;
            if (at < service.size()) w |= std::uint64_t(static_cast<unsigned char>(service[at])) << (8 * i);
        }
        header.service_words[k].store(w, std::memory_order_relaxed);
    }
}

}  // namespace cuzk::ipc
