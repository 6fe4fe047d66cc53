// The public-inputs JSON file: decimal round trips and rejection of malformed documents with the element named.
#include <gtest/gtest.h>

#include <random>

#include "common/ff/decimal.hpp"
#include "common/groth16/public_inputs_json.hpp"
#include "common/util/errors.hpp"

using namespace cuzk;
using namespace cuzk::ff;

TEST(Decimal, RoundTripsRandomAndEdgeValues) {
    std::mt19937_64 rng(5);
    std::vector<fr_t> xs = {fr_t::zero(), fr_t::one(), -fr_t::one(), fr_t::from_u64(10), fr_t::from_u64(~0ULL)};
    for (int i = 0; i < 100; ++i) xs.push_back(fr_t::random(rng));
    for (const auto& x : xs) {
        fr_t y;
        std::string why;
        ASSERT_TRUE(from_decimal(to_decimal(x), y, why)) << why;
        EXPECT_EQ(x, y);
    }
    EXPECT_EQ(to_decimal(fr_t::from_u64(1234567890123ULL)), "1234567890123");
    EXPECT_EQ(to_decimal(-fr_t::one()),
              "52435875175126190479447740508185965837690552500527637822603658699938581184512");
}

TEST(Decimal, RejectsNonCanonicalText) {
    fr_t y;
    std::string why;
    EXPECT_FALSE(from_decimal("", y, why));
    EXPECT_FALSE(from_decimal("012", y, why));
    EXPECT_FALSE(from_decimal("12a", y, why));
    EXPECT_NE(why.find("position 2"), std::string::npos);
    // r itself is out of range.
    EXPECT_FALSE(from_decimal("52435875175126190479447740508185965837690552500527637822603658699938581184513", y, why));
    EXPECT_FALSE(from_decimal(std::string(90, '9'), y, why));
}

TEST(PublicInputsJson, NamesTheBadElement) {
    EXPECT_EQ(groth16::parse_public_inputs("[\"1\", \"2\"]", "x.json").size(), 2u);
    try {
        groth16::parse_public_inputs("[\"1\", \"x\"]", "x.json");
        FAIL() << "accepted a non-decimal element";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("x.json: element [1]"), std::string::npos) << e.what();
    }
    EXPECT_THROW(groth16::parse_public_inputs("{\"a\":1}", "x.json"), input_error);
    EXPECT_THROW(groth16::parse_public_inputs("[1, 2", "x.json"), input_error);
    EXPECT_THROW(groth16::parse_public_inputs("[null]", "x.json"), input_error);
}
