// Little-endian field encoding of the control protocol: fixed-width integers, and strings / byte strings
// as a u32 length followed by the bytes. The reader checks every length against what remains and against a
// per-field limit, and names the field and byte offset when a frame is short or malformed.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cuzk::ipc {

// A frame that cannot be decoded: truncated, trailing bytes, unknown version or type, out-of-range field.
// The receiver answers with an error reply (or drops the frame) and keeps serving.
class protocol_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

static_assert(std::endian::native == std::endian::little, "the wire format is little-endian, as is the host");

class wire_writer {
public:
    template <typename T>
        requires std::is_integral_v<T>
    void put(T value) {
        const auto at = bytes_.size();
        bytes_.resize(at + sizeof(T));
        std::memcpy(bytes_.data() + at, &value, sizeof(T));
    }
    void put_bool(bool value) { put<std::uint8_t>(value ? 1 : 0); }
    void put_raw(std::span<const std::byte> raw) { bytes_.insert(bytes_.end(), raw.begin(), raw.end()); }
    void put_bytes(std::span<const std::byte> raw) {
        put(static_cast<std::uint32_t>(raw.size()));
        put_raw(raw);
    }
    void put_string(std::string_view text) { put_bytes(std::as_bytes(std::span(text.data(), text.size()))); }

    std::vector<std::byte>& bytes() noexcept { return bytes_; }

private:
    std::vector<std::byte> bytes_;
};

class wire_reader {
public:
    // |what| names the frame in errors, e.g. "SUBMIT".
    wire_reader(std::span<const std::byte> bytes, std::string what, std::size_t base_offset = 0)
        : bytes_(bytes), what_(std::move(what)), base_(base_offset) {}

    template <typename T>
        requires std::is_integral_v<T>
    T get(const char* field) {
        need(sizeof(T), field);
        T value;
        std::memcpy(&value, bytes_.data() + at_, sizeof(T));
        at_ += sizeof(T);
        return value;
    }
    bool get_bool(const char* field) {
        const auto offset = this->offset();
        const auto value = get<std::uint8_t>(field);
        if (value > 1) fail(field, offset, "is " + std::to_string(value) + ", a boolean must be 0 or 1");
        return value == 1;
    }
    std::span<const std::byte> get_raw(std::size_t size, const char* field) {
        need(size, field);
        auto out = bytes_.subspan(at_, size);
        at_ += size;
        return out;
    }
    std::span<const std::byte> get_bytes(const char* field, std::size_t max_size) {
        const auto offset = this->offset();
        const auto size = get<std::uint32_t>(field);
        if (size > max_size) {
            fail(field, offset, "declares " + std::to_string(size) + " bytes, the limit is " + std::to_string(max_size));
        }
        return get_raw(size, field);
    }
    std::string get_string(const char* field, std::size_t max_size) {
        const auto raw = get_bytes(field, max_size);
        return {reinterpret_cast<const char*>(raw.data()), raw.size()};
    }

    // Every byte must have been consumed: trailing bytes mean sender and receiver disagree on the layout.
    void expect_end() const {
        if (at_ != bytes_.size()) {
            throw protocol_error(what_ + " frame has " + std::to_string(bytes_.size() - at_) +
                                 " unexpected trailing bytes at offset " + std::to_string(base_ + at_));
        }
    }

    // Byte offset of the next field within the whole frame.
    std::size_t offset() const noexcept { return base_ + at_; }
    // |offset|: of the offending field within the whole frame (as offset() returned before reading it).
    [[noreturn]] void fail(const char* field, std::size_t offset, const std::string& problem) const {
        throw protocol_error(what_ + " frame: field '" + field + "' at byte offset " + std::to_string(offset) + " " +
                             problem);
    }

private:
    void need(std::size_t size, const char* field) const {
        if (bytes_.size() - at_ < size) {
            throw protocol_error(what_ + " frame is truncated: field '" + field + "' at byte offset " +
                                 std::to_string(base_ + at_) + " needs " + std::to_string(size) + " bytes, " +
                                 std::to_string(bytes_.size() - at_) + " remain");
        }
    }

    std::span<const std::byte> bytes_;
    std::string what_;
    std::size_t base_;
    std::size_t at_ = 0;
};

}  // namespace cuzk::ipc
