// What a fuzz target does when the decoder under test breaks one of its promises (a round trip that differs,
// a value outside the range it guarantees): print what and abort, which libFuzzer reports as a crash and saves
// the input that did it. An exception type a decoder does not document escapes the target instead and ends the
// same way (libFuzzer's -handle_abrt, through std::terminate).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace cuzk::fuzz {

[[noreturn]] inline void invariant_failed(std::string_view what, std::string_view detail = {}) {
    std::fprintf(stderr, "fuzz invariant broken: %.*s%s%.*s\n", int(what.size()), what.data(),
                 detail.empty() ? "" : ": ", int(detail.size()), detail.data());
    std::abort();
}

inline void check(bool holds, std::string_view what, std::string_view detail = {}) {
    if (!holds) invariant_failed(what, detail);
}

}  // namespace cuzk::fuzz
