// Decimal text for field elements: the public-inputs JSON of the CLI writes Fr values as decimal strings,
// as Filecoin tooling prints them.
#pragma once

#include <string>
#include <string_view>

#include "common/ff/bls12_381.hpp"

namespace cuzk::ff {

std::string to_decimal(const fr_t& x);

// Parses a canonical decimal integer < r. On failure returns false and says why in |why|.
bool from_decimal(std::string_view text, fr_t& out, std::string& why);

}  // namespace cuzk::ff
