// Fp, Fr and Fp2 arithmetic: algebraic laws and the constants of shared/reference/bls12-381.md.
#include <gtest/gtest.h>

#include <random>

#include "common/ff/bls12_381.hpp"
#include "common/ff/fp2.hpp"

using namespace cuzk::ff;

TEST(FieldConstants, MontgomeryOneMatchesReference) {
    EXPECT_EQ(fp_t::R, parse_hex<6>("0x15f65ec3fa80e4935c071a97a256ec6d77ce5853705257455f48985753c758baebf4000bc40c0002760900000002fffd"));
    EXPECT_EQ(fr_t::R, parse_hex<4>("0x1824b159acc5056f998c4fefecbc4ff55884b7fa0003480200000001fffffffe"));
    EXPECT_EQ(fp_t::BITS, 381u);
    EXPECT_EQ(fr_t::BITS, 255u);
}

TEST(FieldConstants, RootOfUnityIsSevenToTheOddPart) {
    // r - 1 = 2^32 t; 7^t has order exactly 2^32.
    auto t = fr_t::minus_one_repr();
    for (unsigned i = 0; i < FR_TWO_ADICITY; ++i) t = shr1(t);
    fr_t w = fr_t::from_u64(FR_GENERATOR).pow(t);
    EXPECT_EQ(w.to_canonical(), parse_hex<4>("0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b"));
    fr_t x = w;
    for (unsigned i = 0; i < 31; ++i) x = x.sqr();
    EXPECT_EQ(x, -fr_t::one());
}

template <class F>
void check_field_laws(uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 200; ++i) {
        F a = F::random(rng), b = F::random(rng), c = F::random(rng);
        EXPECT_EQ(a * (b + c), a * b + a * c);
        EXPECT_EQ((a - b) + b, a);
        EXPECT_EQ(a.sqr(), a * a);
        if (!a.is_zero()) {
            EXPECT_EQ(a * a.inverse(), F::one());
        }
        F s = a.sqr(), root;
        ASSERT_TRUE(s.sqrt(root));
        EXPECT_TRUE(root == a || root == -a);
    }
}

TEST(Field, FpLaws) { check_field_laws<fp_t>(1); }
TEST(Field, FrLaws) { check_field_laws<fr_t>(2); }
TEST(Field, Fp2Laws) { check_field_laws<fp2_t>(3); }

TEST(Field, CanonicalBytesRejectModulus) {
    uint8_t buf[48];
    fp_t x;
    // p itself is not canonical.
    fp_t::from_raw(fp_t::MODULUS);
    auto p = fp_t::MODULUS;
    for (size_t i = 0; i < 48; ++i) buf[47 - i] = uint8_t(p[i / 8] >> (8 * (i % 8)));
    EXPECT_FALSE(fp_t::from_bytes_be(buf, x));
    buf[47] -= 1;  // p - 1 is
    ASSERT_TRUE(fp_t::from_bytes_be(buf, x));
    EXPECT_EQ(x, -fp_t::one());
}
