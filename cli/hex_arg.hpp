// Hex command-line values: 32-byte commitments, ids and randomness exactly as filecoin-ffi passes
// them (the bytes as stored; for field elements the little-endian representation).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/ff/bls12_381.hpp"

namespace cuzk::cli {

// 64 hex digits (an optional 0x prefix) -> 32 bytes. Throws cuzk::input_error naming |flag|.
std::array<uint8_t, 32> parse_hex32(std::string_view flag, std::string_view text);
// 32 bytes that must be a canonical field element (little-endian, below r).
ff::fr_t parse_fr_hex(std::string_view flag, std::string_view text);
std::string to_hex(const std::array<uint8_t, 32>& bytes);

}  // namespace cuzk::cli
