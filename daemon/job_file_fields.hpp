// The fields of the spooled job files (daemon/post_job_input.hpp, daemon/update_job_input.hpp): little-endian
// u64s and byte runs, read with bounds checks whose errors name the field and its byte offset, so a damaged
// spool file or request says where.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "common/util/errors.hpp"

namespace cuzk::daemon {

inline void put_u64(std::string& out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

struct job_file_reader {
    std::span<const std::uint8_t> bytes;
    const std::string& source;
    std::size_t at = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw input_error(fmt::format("{}: {} at byte {} (of {})", source, what, at, bytes.size()));
    }
    std::span<const std::uint8_t> take(std::size_t n, const char* what) {
        if (bytes.size() - at < n) fail(fmt::format("{} ({} bytes) cut short", what, n));
        auto out = bytes.subspan(at, n);
        at += n;
        return out;
    }
    std::uint64_t u64(const char* what) {
        const auto b = take(8, what);
        std::uint64_t v = 0;
        for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
        return v;
    }
};

}  // namespace cuzk::daemon
