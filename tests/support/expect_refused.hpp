// EXPECT_REFUSED(expr, "part", ...): |expr| throws a cuzk::input_error whose message holds every one of the parts:
// the tests of the strict decoders (PoSt and SnapDeals vanilla proofs) check that a bad input is refused naming
// what and where, not merely that it throws.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/util/errors.hpp"

namespace cuzk::test {

// The message of the input_error |f| throws ("" when it throws none; any other exception goes through).
template <class F>
std::string input_refusal(F&& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace cuzk::test

#define EXPECT_REFUSED(expr, ...)                                                                   \
    do {                                                                                            \
        const std::string msg_ = ::cuzk::test::input_refusal([&] { (void)(expr); });                \
        ASSERT_FALSE(msg_.empty()) << #expr " was accepted";                                        \
        const std::vector<std::string> parts_{__VA_ARGS__};                                         \
        for (const std::string& part_ : parts_)                                                     \
            EXPECT_NE(msg_.find(part_), std::string::npos) << "'" << part_ << "' not in: " << msg_; \
    } while (0)
