// Standard base64 (RFC 4648, with padding), as Go's encoding/json writes a []byte: lotus-bench's
// c2in.json carries the C1 JSON this way. Decoding uses OpenSSL's EVP_DecodeBlock, already a dependency.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace cuzk::util {

// The decoded bytes, or nullopt when |text| is not base64 (bad characters, length not a multiple of 4,
// padding anywhere but the end). Surrounding whitespace is ignored.
std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);

}  // namespace cuzk::util
