#include "common/bincode/bincode_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/ff/bls12_381.hpp"
#include "common/util/errors.hpp"

namespace cuzk::bincode {

void reader::fail(size_t at, std::string_view field, const std::string& what) const {
    std::string where(source_);
    where += ": ";
    for (const std::string& part : context_)
        if (!part.empty()) where += part + ", ";
    throw input_error(fmt::format("{}{} at byte {}: {}", where, field, at, what));
}

const uint8_t* reader::take(size_t n, std::string_view field) {
    if (in_.size() - pos_ < n)
        fail(pos_, field,
             fmt::format("truncated: the input ends at byte {} ({} of {} bytes there)", in_.size(), in_.size() - pos_,
                         n));
    const uint8_t* p = in_.data() + pos_;
    pos_ += n;
    return p;
}

uint64_t reader::u64(std::string_view field) {
    const uint8_t* p = take(8, field);
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
    return v;
}

uint32_t reader::u32(std::string_view field) {
    const uint8_t* p = take(4, field);
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

c1::domain_t reader::domain(std::string_view field) {
    const size_t at = pos_;
    c1::domain_t d{};
    const uint8_t* p = take(32, field);
    std::copy(p, p + 32, d.begin());
    ff::fr_t unused;
    if (!ff::fr_t::from_bytes_le(d.data(), unused))
        fail(at, field, "not a canonical field element (the little-endian value is >= r)");
    return d;
}

void reader::length(std::string_view field, uint64_t expected) {
    const size_t at = pos_;
    const uint64_t n = u64(field);
    if (n != expected) fail(at, field, fmt::format("{}, expected {}", n, expected));
}

void reader::finish(std::string_view field) {
    if (pos_ != in_.size()) fail(pos_, field, fmt::format("{} trailing bytes", in_.size() - pos_));
}

}  // namespace cuzk::bincode
