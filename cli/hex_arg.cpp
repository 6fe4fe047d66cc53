#include "cli/hex_arg.hpp"

#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {
int nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

std::array<uint8_t, 32> parse_hex32(std::string_view flag, std::string_view text) {
    std::string_view digits = text;
    if (digits.starts_with("0x") || digits.starts_with("0X")) digits.remove_prefix(2);
    if (digits.size() != 64)
        throw input_error(std::string(flag) + ": expected 64 hex digits (32 bytes), got " +
                          std::to_string(digits.size()) + " characters");
    std::array<uint8_t, 32> out{};
    for (size_t i = 0; i < 32; ++i) {
        int hi = nibble(digits[2 * i]), lo = nibble(digits[2 * i + 1]);
        if (hi < 0 || lo < 0)
            throw input_error(std::string(flag) + ": '" + std::string(digits.substr(2 * i, 2)) +
                              "' at character " + std::to_string(2 * i + (digits.size() < text.size() ? 2 : 0)) +
                              " is not hex");
        out[i] = uint8_t(hi << 4 | lo);
    }
    return out;
}

ff::fr_t parse_fr_hex(std::string_view flag, std::string_view text) {
    auto bytes = parse_hex32(flag, text);
    ff::fr_t out;
    if (!ff::fr_t::from_bytes_le(bytes.data(), out))
        throw input_error(std::string(flag) + ": not a field element (the little-endian value is >= r)");
    return out;
}

std::string to_hex(const std::array<uint8_t, 32>& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (uint8_t b : bytes) {
        s.push_back(digits[b >> 4]);
        s.push_back(digits[b & 15]);
    }
    return s;
}

}  // namespace cuzk::cli
