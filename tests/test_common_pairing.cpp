// Fp6/Fp12 tower laws and the optimal ate pairing, against @noble/curves values
// (tests/data/pairing_vectors.json, made by tests/oracle/gen_pairing_vectors.mjs).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/ec/jacobian.hpp"
#include "common/ec/pairing.hpp"
#include "common/ff/fp12.hpp"

using namespace cuzk::ec;
using namespace cuzk::ff;
using json = nlohmann::json;

namespace {

const json& vectors() {
    static const json v = [] {
        std::ifstream in(std::string(CUZK_TEST_DATA_DIR) + "/pairing_vectors.json");
        EXPECT_TRUE(in.good()) << "missing tests/data/pairing_vectors.json";
        return json::parse(in);
    }();
    return v;
}

fp_t fp_hex(const json& j) { return fp_t::from_hex(j.get<std::string>().c_str()); }
fp2_t fp2_hex(const json& j) { return fp2_t(fp_hex(j["c0"]), fp_hex(j["c1"])); }
fr_t fr_hex(const json& j) { return fr_t::from_hex(j.get<std::string>().c_str()); }

// Twelve coordinates in noble's order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1.
fp12_t fp12_hex(const json& j) {
    EXPECT_EQ(j.size(), 12u);
    auto f2 = [&](size_t i) { return fp2_t(fp_hex(j[i]), fp_hex(j[i + 1])); };
    auto f6 = [&](size_t i) { return fp6_t(f2(i), f2(i + 2), f2(i + 4)); };
    return fp12_t(f6(0), f6(6));
}
g1_affine_t g1_json(const json& j) { return g1_affine_t::from_xy(fp_hex(j["x"]), fp_hex(j["y"])); }
g2_affine_t g2_json(const json& j) { return g2_affine_t::from_xy(fp2_hex(j["x"]), fp2_hex(j["y"])); }

g1_affine_t g1_mul(const fr_t& k) { return g1_jacobian_t::from_affine(g1_generator()).mul(k).to_affine(); }
g2_affine_t g2_mul(const fr_t& k) { return g2_jacobian_t::from_affine(g2_generator()).mul(k).to_affine(); }

// Moves f into the cyclotomic subgroup by the easy part of the final exponentiation.
fp12_t easy_part(const fp12_t& f) {
    fp12_t m = f.conjugate() * f.inverse();
    return m.frobenius_map(2) * m;
}

using term = std::pair<g1_affine_t, const g2_prepared*>;

}  // namespace

TEST(TowerFields, Fp6FieldLawsHold) {
    std::mt19937_64 rng(61);
    for (int i = 0; i < 50; ++i) {
        fp6_t a = fp6_t::random(rng), b = fp6_t::random(rng), c = fp6_t::random(rng);
        EXPECT_EQ(a * (b + c), a * b + a * c);
        EXPECT_EQ((a * b) * c, a * (b * c));
        EXPECT_EQ(a * b, b * a);
        EXPECT_EQ(a.sqr(), a * a);
        EXPECT_EQ(a * a.inverse(), fp6_t::one());
        fp6_t v(fp2_t::zero(), fp2_t::one(), fp2_t::zero());
        EXPECT_EQ(a.mul_by_nonresidue(), a * v);
        EXPECT_EQ(v * v * v, fp6_t(fp2_t::one().mul_by_nonresidue(), fp2_t::zero(), fp2_t::zero()));
        EXPECT_EQ(a.mul_by_01(b.c0, b.c1), a * fp6_t(b.c0, b.c1, fp2_t::zero()));
        EXPECT_EQ(a.mul_by_1(b.c1), a * fp6_t(fp2_t::zero(), b.c1, fp2_t::zero()));
    }
    EXPECT_TRUE(fp6_t::zero().inverse().is_zero());
}

TEST(TowerFields, Fp12FieldLawsHold) {
    std::mt19937_64 rng(121);
    for (int i = 0; i < 30; ++i) {
        fp12_t a = fp12_t::random(rng), b = fp12_t::random(rng), c = fp12_t::random(rng);
        EXPECT_EQ(a * (b + c), a * b + a * c);
        EXPECT_EQ((a * b) * c, a * (b * c));
        EXPECT_EQ(a * b, b * a);
        EXPECT_EQ(a.sqr(), a * a);
        EXPECT_EQ(a * a.inverse(), fp12_t::one());
        fp12_t w(fp6_t::zero(), fp6_t::one());
        EXPECT_EQ(w * w, fp12_t(fp6_t(fp2_t::zero(), fp2_t::one(), fp2_t::zero()), fp6_t::zero()));
        fp2_t o0 = b.c0.c0, o1 = b.c0.c1, o4 = b.c1.c1;
        fp12_t sparse(fp6_t(o0, o1, fp2_t::zero()), fp6_t(fp2_t::zero(), o4, fp2_t::zero()));
        EXPECT_EQ(a.mul_by_014(o0, o1, o4), a * sparse);
    }
}

TEST(TowerFields, FrobeniusEqualsPowerOfP) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 3; ++i) {
        fp6_t a = fp6_t::random(rng);
        EXPECT_EQ(a.frobenius_map(1), a.pow(fp_t::MODULUS));
        fp12_t f = fp12_t::random(rng);
        fp12_t fp = f.pow(fp_t::MODULUS);
        EXPECT_EQ(f.frobenius_map(1), fp);
        EXPECT_NE(fp, f);
        // frobenius_map(k) is the k-fold map, through a full period of 12.
        fp12_t g = f;
        fp6_t b = a;
        for (unsigned k = 1; k <= 12; ++k) {
            g = g.frobenius_map(1);
            b = b.frobenius_map(1);
            EXPECT_EQ(f.frobenius_map(k), g) << "k = " << k;
            EXPECT_EQ(a.frobenius_map(k), b) << "k = " << k;
        }
        EXPECT_EQ(g, f);
        EXPECT_EQ(f.frobenius_map(6), f.conjugate());
    }
}

TEST(TowerFields, CyclotomicSquaringMatchesSquaringInTheSubgroup) {
    std::mt19937_64 rng(12);
    for (int i = 0; i < 10; ++i) {
        fp12_t f = fp12_t::random(rng);
        fp12_t m = easy_part(f);
        EXPECT_EQ(m.cyclotomic_sqr(), m.sqr());
        EXPECT_EQ(m * m.conjugate(), fp12_t::one());  // conj is the inverse in the subgroup
        EXPECT_EQ(m.cyclotomic_pow(BLS_X), m.pow(limbs<1>{BLS_X}));
        // Outside the subgroup the shortcut is wrong: the test above can tell the two apart.
        EXPECT_NE(f.cyclotomic_sqr(), f.sqr());
    }
}

TEST(FinalExponentiation, MatchesNobleOnAnArbitraryElement) {
    const json& v = vectors()["final_exponentiation"];
    fp12_t in = fp12_hex(v["input"]);
    EXPECT_EQ(final_exponentiation(in), fp12_hex(v["output"]));
}

TEST(FinalExponentiation, EqualsPowerByThreeTimesPToTheTwelveMinusOneOverR) {
    // 3 (p^12 - 1)/r, computed by the oracle with arbitrary-precision integers: 4314 bits.
    const std::string e_hex = vectors()["final_exponent"].get<std::string>();
    ASSERT_LE(e_hex.size(), 16u * 68u);
    auto e = parse_hex<68>(e_hex.c_str());
    std::mt19937_64 rng(3);
    fp12_t f = fp12_t::random(rng);
    EXPECT_EQ(final_exponentiation(f), f.pow(e));
}

TEST(Pairing, GeneratorPairingMatchesNobleInAllTwelveCoordinates) {
    fp12_t e = pairing(g1_generator(), g2_generator());
    fp12_t want = fp12_hex(vectors()["generator_pairing"]);
    EXPECT_EQ(e, want);
    EXPECT_EQ(e.c0.c0.c0,
              fp_t::from_hex("0x1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6"));
}

TEST(Pairing, ScaledPairingsMatchNoble) {
    for (const json& c : vectors()["scaled_pairings"]) {
        fr_t a = fr_hex(c["a"]), b = fr_hex(c["b"]);
        g1_affine_t p = g1_json(c["g1"]);
        g2_affine_t q = g2_json(c["g2"]);
        ASSERT_EQ(g1_mul(a), p);
        ASSERT_EQ(g2_mul(b), q);
        EXPECT_EQ(pairing(p, q), fp12_hex(c["e"])) << "a = " << c["a"] << ", b = " << c["b"];
    }
}

TEST(Pairing, MultiPairingProductMatchesNoble) {
    const json& m = vectors()["multi_pairing"];
    std::vector<g1_affine_t> ps;
    std::vector<g2_prepared> qs;
    for (const json& t : m["terms"]) {
        ps.push_back(g1_json(t["g1"]));
        qs.push_back(prepare_g2(g2_json(t["g2"])));
    }
    std::vector<term> terms;
    for (size_t i = 0; i < ps.size(); ++i) terms.emplace_back(ps[i], &qs[i]);
    fp12_t want = fp12_hex(m["product"]);
    EXPECT_EQ(final_exponentiation(multi_miller_loop(terms)), want);
    fp12_t prod = fp12_t::one();
    for (size_t i = 0; i < ps.size(); ++i) prod *= final_exponentiation(miller_loop(ps[i], qs[i]));
    EXPECT_EQ(prod, want);
}

TEST(Pairing, IsBilinear) {
    std::mt19937_64 rng(2024);
    fp12_t base = pairing(g1_generator(), g2_generator());
    for (int i = 0; i < 3; ++i) {
        fr_t a = fr_t::random(rng), b = fr_t::random(rng);
        fp12_t e_ab = pairing(g1_mul(a), g2_mul(b));
        EXPECT_EQ(e_ab, base.pow((a * b).to_canonical()));
        EXPECT_EQ(e_ab, pairing(g1_mul(a * b), g2_generator()));
        EXPECT_EQ(e_ab, pairing(g1_generator(), g2_mul(a * b)));
    }
}

TEST(Pairing, IsNonDegenerateWithOrderR) {
    fp12_t e = pairing(g1_generator(), g2_generator());
    EXPECT_FALSE(e.is_one());
    EXPECT_TRUE(e.pow(fr_t::MODULUS).is_one());
}

TEST(Pairing, IdentityOnEitherSideGivesOne) {
    EXPECT_TRUE(pairing(g1_affine_t::identity(), g2_generator()).is_one());
    EXPECT_TRUE(pairing(g1_generator(), g2_affine_t::identity()).is_one());
    g2_prepared inf = prepare_g2(g2_affine_t::identity());
    EXPECT_TRUE(inf.infinity);
    EXPECT_TRUE(inf.coeffs.empty());
    EXPECT_TRUE(miller_loop(g1_generator(), inf).is_one());
    g2_prepared q = prepare_g2(g2_generator());
    EXPECT_FALSE(q.infinity);
    EXPECT_TRUE(miller_loop(g1_affine_t::identity(), q).is_one());
    EXPECT_TRUE(pairing_product_is_one(std::span<const term>()));
    // Identity terms drop out of a product without changing it.
    std::vector<term> terms{{g1_affine_t::identity(), &q}, {g1_generator(), &inf}};
    EXPECT_TRUE(pairing_product_is_one(terms));
    terms.emplace_back(g1_generator(), &q);
    EXPECT_FALSE(pairing_product_is_one(terms));
}

TEST(Pairing, ProductWithNegatedPointIsOne) {
    std::mt19937_64 rng(5);
    fr_t a = fr_t::random(rng), b = fr_t::random(rng);
    g1_affine_t p = g1_mul(a);
    g2_prepared q = prepare_g2(g2_mul(b));
    std::vector<term> terms{{p, &q}, {-p, &q}};
    EXPECT_TRUE(pairing_product_is_one(terms));
    std::vector<term> same{{p, &q}, {p, &q}};
    EXPECT_FALSE(pairing_product_is_one(same));
    // The Groth16 shape: e(A, B) = e(alpha, beta) e(L, gamma) e(C, delta) as a product of four.
    fr_t al = fr_t::random(rng), be = fr_t::random(rng), ga = fr_t::random(rng), de = fr_t::random(rng);
    fr_t l = fr_t::random(rng), c = fr_t::random(rng);
    fr_t ab = al * be + l * ga + c * de;  // A = ab G1, B = G2
    g2_prepared g2 = prepare_g2(g2_generator()), beta = prepare_g2(g2_mul(be)), gamma = prepare_g2(g2_mul(ga)),
                delta = prepare_g2(g2_mul(de));
    std::vector<term> groth{{g1_mul(ab), &g2}, {-g1_mul(al), &beta}, {-g1_mul(l), &gamma}, {-g1_mul(c), &delta}};
    EXPECT_TRUE(pairing_product_is_one(groth));
    groth[3].first = g1_mul(c);
    EXPECT_FALSE(pairing_product_is_one(groth));
}
