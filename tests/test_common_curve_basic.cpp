// Group laws of the Jacobian formulas on G1 and G2 (independent vectors live in test_common_curve).
#include <gtest/gtest.h>

#include <random>

#include "common/ec/jacobian.hpp"

using namespace cuzk::ec;

template <class F>
void check_group_laws(const affine_t<F>& g, uint64_t seed) {
    std::mt19937_64 rng(seed);
    using J = jacobian_t<F>;
    ASSERT_TRUE(is_on_curve(g));
    J G = J::from_affine(g);
    for (int i = 0; i < 20; ++i) {
        fr_t a = fr_t::random(rng), b = fr_t::random(rng);
        J A = G.mul(a), B = G.mul(b);
        EXPECT_EQ(A + B, G.mul(a + b));
        EXPECT_EQ(A.add_mixed(B.to_affine()), G.mul(a + b));
        EXPECT_EQ(A + A, A.dbl());
        EXPECT_EQ(A.add_mixed(A.to_affine()), A.dbl());
        EXPECT_TRUE((A - A).is_identity());
        EXPECT_TRUE(is_on_curve(A.to_affine()));
    }
    // r * G = identity: the generator lies in the prime-order subgroup.
    auto r = fr_t::MODULUS;
    EXPECT_TRUE(G.mul(r).is_identity());
    std::vector<J> js;
    for (int i = 1; i <= 5; ++i) js.push_back(G.mul(fr_t::from_u64(i)));
    js.push_back(J::identity());
    std::vector<affine_t<F>> as(js.size());
    batch_to_affine(js.data(), as.data(), js.size());
    for (size_t i = 0; i < js.size(); ++i) EXPECT_EQ(as[i], js[i].to_affine());
}

TEST(CurveBasic, G1GroupLaws) { check_group_laws(g1_generator(), 11); }
TEST(CurveBasic, G2GroupLaws) { check_group_laws(g2_generator(), 12); }
