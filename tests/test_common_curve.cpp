// G1/G2 scalar multiplication, addition and doubling against @noble/curves (tests/data/vectors.json),
// and the endomorphism subgroup checks against the definition [r]P == O.
// Coordinates are read straight from the uncompressed vectors, without the serialization code,
// so a bug there cannot hide one here.
#include <gtest/gtest.h>

#include "tests/support/curve_points.hpp"
#include "tests/support/oracle_data.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/ec/jacobian.hpp"
#include "common/ec/subgroup.hpp"

using namespace cuzk::ec;
using cuzk::ff::limbs;
using nlohmann::json;

namespace {

const json& vectors() { return cuzk::test::oracle_json("vectors.json"); }
using cuzk::test::hex;
using cuzk::test::unhex;

fp_t fp_at(const uint8_t* p) {
    fp_t v;
    EXPECT_TRUE(fp_t::from_bytes_be(p, v));
    return v;
}

// Uncompressed zcash layout, parsed by hand: infinity is 0x40 then zeros; G2 writes c1 then c0.
g1_affine_t g1_raw(const std::string& h) {
    std::vector<uint8_t> b = unhex(h);
    EXPECT_EQ(b.size(), 96u);
    if (b[0] == 0x40) return g1_affine_t::identity();
    return g1_affine_t::from_xy(fp_at(&b[0]), fp_at(&b[48]));
}
g2_affine_t g2_raw(const std::string& h) {
    std::vector<uint8_t> b = unhex(h);
    EXPECT_EQ(b.size(), 192u);
    if (b[0] == 0x40) return g2_affine_t::identity();
    return g2_affine_t::from_xy(fp2_t(fp_at(&b[48]), fp_at(&b[0])), fp2_t(fp_at(&b[144]), fp_at(&b[96])));
}
g1_affine_t raw(const std::string& h, fp_t) { return g1_raw(h); }
g2_affine_t raw(const std::string& h, fp2_t) { return g2_raw(h); }

template <class F>
void check_scalar_multiples(const json& group, const affine_t<F>& g) {
    using J = jacobian_t<F>;
    ASSERT_GE(group["mul"].size(), 10u);
    for (const json& c : group["mul"]) {
        SCOPED_TRACE("k=" + c["k"].get<std::string>());
        // k may exceed r (the oracle includes r, r + 1 and unreduced 255-bit values).
        limbs<4> k = cuzk::ff::parse_hex<4>(c["k"].get<std::string>().c_str());
        affine_t<F> want = raw(c["uncompressed"].get<std::string>(), F());
        EXPECT_TRUE(is_on_curve(want));
        EXPECT_EQ(J::from_affine(g).mul(k).to_affine(), want);
    }
}

template <class F>
void check_add_and_double(const json& group) {
    using J = jacobian_t<F>;
    for (const json& c : group["add"]) {
        affine_t<F> p = raw(c["p"].get<std::string>(), F());
        affine_t<F> q = raw(c["q"].get<std::string>(), F());
        affine_t<F> want = raw(c["uncompressed"].get<std::string>(), F());
        EXPECT_EQ(J::from_affine(p).add(J::from_affine(q)).to_affine(), want);
        EXPECT_EQ(J::from_affine(p).add_mixed(q).to_affine(), want);
    }
    for (const json& c : group["dbl"]) {
        affine_t<F> p = raw(c["p"].get<std::string>(), F());
        EXPECT_EQ(J::from_affine(p).dbl().to_affine(), raw(c["uncompressed"].get<std::string>(), F()));
    }
}

// Cofactor of G1: h1 = (x - 1)^2 / 3 = (|x| + 1)^2 / 3 because x < 0.
limbs<2> g1_cofactor() {
    cuzk::ff::u128 xm1 = cuzk::ff::u128(cuzk::ff::BLS_X) + 1;
    cuzk::ff::u128 h = xm1 * xm1 / 3;
    return limbs<2>{uint64_t(h), uint64_t(h >> 64)};
}

// A point of E(Fp) or E'(Fp2) from a random x: almost never in the subgroup, because the
// cofactor is huge; not multiplied by anything.
using cuzk::test::random_curve_point;

struct labelled {
    const char* kind;
    bool in_subgroup_expected;  // known by construction
};

// The fast test must agree with [r]P == O on points in the subgroup, on random curve points,
// on pure torsion points [r]Q (order dividing the cofactor) and on G-multiples shifted by one.
template <class F, class Check>
void check_subgroup_test(const affine_t<F>& g, Check fast, uint64_t seed, int rounds) {
    using J = jacobian_t<F>;
    std::mt19937_64 rng(seed);
    int in = 0, out = 0;
    for (int i = 0; i < rounds; ++i) {
        affine_t<F> member = J::from_affine(g).mul(fr_t::random(rng)).to_affine();
        affine_t<F> q = random_curve_point<F>(rng);
        affine_t<F> torsion = J::from_affine(q).mul(fr_t::MODULUS).to_affine();
        affine_t<F> shifted = J::from_affine(member).add_mixed(torsion).to_affine();
        for (const affine_t<F>& p : {member, q, torsion, shifted}) {
            ASSERT_TRUE(is_on_curve(p));
            bool slow = is_r_torsion(p);
            EXPECT_EQ(fast(p), slow);
            (slow ? in : out) += 1;
        }
        EXPECT_TRUE(fast(member));
        EXPECT_FALSE(fast(q));
        EXPECT_FALSE(torsion.is_identity());
        EXPECT_FALSE(fast(torsion));
        EXPECT_FALSE(fast(shifted));
    }
    EXPECT_EQ(in, rounds);
    EXPECT_EQ(out, 3 * rounds);
}

}  // namespace

TEST(CurveVectors, G1ScalarMultiplesMatchNoble) { check_scalar_multiples(vectors()["g1"], g1_generator()); }
TEST(CurveVectors, G2ScalarMultiplesMatchNoble) { check_scalar_multiples(vectors()["g2"], g2_generator()); }
TEST(CurveVectors, G1AddAndDoubleMatchNoble) { check_add_and_double<fp_t>(vectors()["g1"]); }
TEST(CurveVectors, G2AddAndDoubleMatchNoble) { check_add_and_double<fp2_t>(vectors()["g2"]); }

TEST(Subgroup, G1BetaIsANonTrivialCubeRootOfUnity) {
    const fp_t& beta = detail::g1_endo_beta();
    EXPECT_FALSE(beta.is_one());
    EXPECT_TRUE((beta.sqr() * beta).is_one());
}

// phi must act as [-x^2] on G1 (the eigenvalue the membership test relies on), psi as [x] on G2.
TEST(Subgroup, EndomorphismsActAsTheExpectedScalarsOnGenerators) {
    limbs<1> abs_x{cuzk::ff::BLS_X};
    g1_jacobian_t g1 = g1_jacobian_t::from_affine(g1_generator());
    EXPECT_EQ(g1_jacobian_t::from_affine(g1_phi(g1_generator())), -g1.mul(abs_x).mul(abs_x));
    g2_jacobian_t g2 = g2_jacobian_t::from_affine(g2_generator());
    EXPECT_EQ(g2_jacobian_t::from_affine(g2_psi(g2_generator())), -g2.mul(abs_x));
    // psi maps the twist to itself, also off the subgroup.
    std::mt19937_64 rng(3);
    EXPECT_TRUE(is_on_curve(g2_psi(random_curve_point<fp2_t>(rng))));
    EXPECT_TRUE(is_on_curve(g1_phi(random_curve_point<fp_t>(rng))));
}

TEST(Subgroup, G1FastCheckAgreesWithMultiplicationByR) {
    check_subgroup_test(g1_generator(), [](const g1_affine_t& p) { return g1_in_subgroup(p); }, 21, 24);
}

TEST(Subgroup, G2FastCheckAgreesWithMultiplicationByR) {
    check_subgroup_test(g2_generator(), [](const g2_affine_t& p) { return g2_in_subgroup(p); }, 22, 12);
}

// Clearing the cofactor of a random point gives subgroup points unrelated to the generator.
TEST(Subgroup, G1AcceptsCofactorClearedRandomPoints) {
    std::mt19937_64 rng(23);
    for (int i = 0; i < 16; ++i) {
        g1_affine_t p = g1_jacobian_t::from_affine(random_curve_point<fp_t>(rng)).mul(g1_cofactor()).to_affine();
        EXPECT_TRUE(is_r_torsion(p));
        EXPECT_TRUE(g1_in_subgroup(p));
    }
}

TEST(Subgroup, IdentityIsInBothSubgroups) {
    EXPECT_TRUE(g1_in_subgroup(g1_affine_t::identity()));
    EXPECT_TRUE(g2_in_subgroup(g2_affine_t::identity()));
}

TEST(Subgroup, RejectsNobleNonSubgroupPoints) {
    for (const json& c : vectors()["g1"]["not_in_subgroup"]) {
        g1_affine_t p = g1_raw(c["uncompressed"].get<std::string>());
        ASSERT_TRUE(is_on_curve(p));
        EXPECT_FALSE(g1_in_subgroup(p));
        EXPECT_FALSE(is_r_torsion(p));
    }
    for (const json& c : vectors()["g2"]["not_in_subgroup"]) {
        g2_affine_t p = g2_raw(c["uncompressed"].get<std::string>());
        ASSERT_TRUE(is_on_curve(p));
        EXPECT_FALSE(g2_in_subgroup(p));
        EXPECT_FALSE(is_r_torsion(p));
    }
}
