#include "common/ff/decimal.hpp"

#include <algorithm>

namespace cuzk::ff {

std::string to_decimal(const fr_t& x) {
    limbs<4> v = x.to_canonical();
    std::string out;
    while (!is_zero(v)) {
        // Divide the 256-bit value by 10, limb by limb from the top.
        u128 rem = 0;
        for (size_t i = 4; i-- > 0;) {
            u128 cur = (rem << 64) | v[i];
            v[i] = uint64_t(cur / 10);
            rem = cur % 10;
        }
        out.push_back(char('0' + int(rem)));
    }
    if (out.empty()) out.push_back('0');
    std::reverse(out.begin(), out.end());
    return out;
}

bool from_decimal(std::string_view text, fr_t& out, std::string& why) {
    if (text.empty()) {
        why = "empty string";
        return false;
    }
    if (text.size() > 1 && text[0] == '0') {
        why = "leading zero (not canonical)";
        return false;
    }
    limbs<4> v{};
    for (size_t pos = 0; pos < text.size(); ++pos) {
        char c = text[pos];
        if (c < '0' || c > '9') {
            why = "character '" + std::string(1, c) + "' at position " + std::to_string(pos) + " is not a decimal digit";
            return false;
        }
        // v = v * 10 + digit, failing on overflow past 256 bits.
        uint64_t carry = uint64_t(c - '0');
        for (size_t i = 0; i < 4; ++i) {
            u128 cur = u128(v[i]) * 10 + carry;
            v[i] = uint64_t(cur);
            carry = uint64_t(cur >> 64);
        }
        if (carry != 0) {
            why = "value does not fit in 256 bits";
            return false;
        }
    }
    if (!fr_t::from_repr_checked(v, out)) {
        why = "value is not less than the scalar field modulus r";
        return false;
    }
    return true;
}

}  // namespace cuzk::ff
