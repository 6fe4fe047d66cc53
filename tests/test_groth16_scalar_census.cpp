// classify_scalars and census_of (common/groth16/scalar_census.hpp): each class at its edges (1 against 0 and
// 2, the largest small value 2^64 - 1 against 2^64, r - 1), a density that selects, a density of the wrong
// size refused by name, and a hand-built partition whose L, A and B scalars are known.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/scalar_census.hpp"

using namespace cuzk;
using namespace cuzk::groth16;
using ff::fr_t;

namespace {

fr_t two_to_64() { return fr_t::from_canonical({0, 1, 0, 0}); }
fr_t minus_one() { return fr_t::zero() - fr_t::one(); }

TEST(ScalarCensus, ClassesAtTheirEdges) {
    const std::vector<fr_t> x = {fr_t::zero(), fr_t::one(),         fr_t::from_u64(2), fr_t::from_u64(~uint64_t(0)),
                                 two_to_64(),  minus_one(),         fr_t::one(),       fr_t::zero(),
                                 fr_t::zero(), fr_t::from_u64(12345)};
    const scalar_classes c = classify_scalars(x);
    EXPECT_EQ(c.zero, 3u);
    EXPECT_EQ(c.one, 2u);
    EXPECT_EQ(c.small, 3u);  // 2, 2^64 - 1, 12345
    EXPECT_EQ(c.other, 2u);  // 2^64, r - 1
    EXPECT_EQ(c.total(), x.size());
}

TEST(ScalarCensus, DensitySelectsAndMustFit) {
    // Many scalars, so the parallel blocks split them: the census equals the serial count of the selected ones.
    std::mt19937_64 g(7);
    std::vector<fr_t> x(300'001);
    std::vector<uint64_t> words((x.size() + 63) / 64, 0);
    scalar_classes expect;
    for (size_t i = 0; i < x.size(); ++i) {
        const unsigned kind = unsigned(g() % 4);
        x[i] = kind == 0 ? fr_t::zero() : kind == 1 ? fr_t::one() : kind == 2 ? fr_t::from_u64(g() | 2) : minus_one();
        if (g() % 3 == 0) continue;
        words[i / 64] |= uint64_t(1) << (i % 64);
        (kind == 0 ? expect.zero : kind == 1 ? expect.one : kind == 2 ? expect.small : expect.other) += 1;
    }
    const density_view d{words, x.size()};
    EXPECT_EQ(classify_scalars(x, &d), expect);

    const density_view short_one{words, x.size() - 1};
    try {
        classify_scalars(x, &short_one, "B aux");
        FAIL() << "a density of the wrong size was accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("B aux"), std::string::npos) << e.what();
    }
}

// Inputs: ONE, 5. Aux: 0, 1, 7, r - 1. A names aux 0 and 2; B names input 1 and aux 1 and 3.
TEST(ScalarCensus, PartitionQueriesAreTheProversScalars) {
    proving_assignment pa;
    const auto in = pa.alloc_input(fr_t::from_u64(5));
    const auto z = pa.alloc(fr_t::zero()), o = pa.alloc(fr_t::one()), s = pa.alloc(fr_t::from_u64(7)),
               m = pa.alloc(minus_one());
    pa.enforce(z, o, z);  // 0 * 1 = 0
    pa.enforce(s, cs::linear_combination(in) + m, s);  // unsatisfied: the census reads values, not rows
    pa.finish();
    const partition_census c = census_of(view_of(pa));
    EXPECT_EQ(c.l, (scalar_classes{1, 1, 1, 1}));
    EXPECT_EQ(c.a, (scalar_classes{1, 1, 2, 0}));  // ONE and 5 (every input), then aux 0 and 7
    EXPECT_EQ(c.b, (scalar_classes{0, 1, 1, 1}));  // input 5, aux 1 and r - 1
}

}  // namespace
