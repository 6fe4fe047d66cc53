#include "common/util/base64.hpp"

#include <openssl/evp.h>

#include <climits>

namespace cuzk::util {

std::optional<std::vector<uint8_t>> base64_decode(std::string_view text) {
    auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    if (text.size() % 4 != 0 || text.size() > size_t(INT_MAX)) return std::nullopt;
    // '=' may only pad the last group, at most twice: EVP_DecodeBlock does not check that.
    size_t pad = 0;
    while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
    if (text.substr(0, text.size() - pad).find('=') != std::string_view::npos) return std::nullopt;
    std::vector<uint8_t> out(text.size() / 4 * 3);
    int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()), int(text.size()));
    if (n < 0) return std::nullopt;
    // EVP_DecodeBlock counts the padding as zero bytes.
    out.resize(size_t(n) - pad);
    return out;
}

}  // namespace cuzk::util
