// The GPU's field arithmetic (gpud/cuda/field.cuh: 32-bit limbs, PTX carry chains) compiled for the host,
// with the carry flag emulated, against the CPU field (common/ff): every machine, CI included, checks the
// device multiplication, squaring, reduction, addition, subtraction and inversion for Fp, Fr and Fp2 on
// random and edge operands, and the device XYZZ bucket steps against the host ones. The GPU tests
// (test_cuda_*) check the same code as compiled for the device, where a GPU is present.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "common/ec/xyzz.hpp"
#include "common/ff/bls12_381.hpp"
#include "common/ff/fp2.hpp"
#include "gpud/cuda/field.cuh"
#include "support/curve_points.hpp"
#include "support/field_operands.hpp"

using namespace cuzk;

namespace {

template <class H>
std::vector<H> operands(std::mt19937_64& rng, int random_count) {
    return test::field_operands<H>(rng, random_count);
}

template <class D, class H>
void check_field(int random_count, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto xs = operands<H>(rng, random_count);
    for (const H& a : xs) {
        const D da(a);
        ASSERT_EQ(H(da.sqr()), a.sqr());
        ASSERT_EQ(H(-da), -a);
        ASSERT_EQ(H(da.dbl()), a + a);
        ASSERT_EQ(da.is_zero(), a.is_zero());
        for (const H& b : xs) {
            const D db(b);
            ASSERT_EQ(H(da * db), a * b);
            ASSERT_EQ(H(da + db), a + b);
            ASSERT_EQ(H(da - db), a - b);
            if constexpr (std::is_same_v<D, cuda::fp2_t>) {
                ASSERT_EQ(da.c0 == db.c0 && da.c1 == db.c1, a == b);
            } else {
                ASSERT_EQ(da == db, a == b);
            }
        }
    }
}

}  // namespace

TEST(DeviceFieldOnHost, FpMatchesTheCpuField) { check_field<cuda::fp_t, ff::fp_t>(40, 1); }

TEST(DeviceFieldOnHost, FrMatchesTheCpuField) { check_field<cuda::fr_t, ff::fr_t>(40, 2); }

// Fp with its multiplications inlined (the MSM's accumulation kernel): the same products as called.
TEST(DeviceFieldOnHost, InlinedFpMatchesTheCpuField) { check_field<cuda::fp_inlined_t, ff::fp_t>(30, 16); }

TEST(DeviceFieldOnHost, Fp2MatchesTheCpuField) { check_field<cuda::fp2_t, ff::fp2_t>(15, 3); }

TEST(DeviceFieldOnHost, InverseAndCanonicalForm) {
    std::mt19937_64 rng(4);
    for (const auto& a : operands<ff::fp_t>(rng, 10)) {
        const auto d = cuda::fp_t(a);
        EXPECT_EQ(ff::fp_t(d.inverse()), a.is_zero() ? ff::fp_t::zero() : a.inverse());
        EXPECT_EQ(ff::fp_t(d.inverse_binary()), a.is_zero() ? ff::fp_t::zero() : a.inverse());
        EXPECT_EQ(ff::fp_t(d.inverse_fast()), a.is_zero() ? ff::fp_t::zero() : a.inverse());
        // from_montgomery gives the canonical integer: the host's to_canonical limbs.
        const auto c = a.to_canonical();
        const auto got = ff::fp_t(d.from_montgomery());
        EXPECT_EQ(std::memcmp(&c, &got, sizeof c), 0);
    }
    for (const auto& a : operands<ff::fr_t>(rng, 10)) {
        const auto c = a.to_canonical();
        const auto got = ff::fr_t(cuda::fr_t(a).from_montgomery());
        EXPECT_EQ(std::memcmp(&c, &got, sizeof c), 0);
        EXPECT_EQ(cuda::fr_t(a).is_one(), a == ff::fr_t::one());
        EXPECT_EQ(ff::fr_t(cuda::fr_t(a).inverse_binary()), a.is_zero() ? ff::fr_t::zero() : a.inverse());
        EXPECT_EQ(ff::fr_t(cuda::fr_t(a).inverse_fast()), a.is_zero() ? ff::fr_t::zero() : a.inverse());
    }
    for (const auto& a : operands<ff::fp2_t>(rng, 5)) {
        EXPECT_EQ(ff::fp2_t(cuda::fp2_t(a).inverse()), a.is_zero() ? ff::fp2_t::zero() : a.inverse());
        EXPECT_EQ(ff::fp2_t(cuda::fp2_t(a).inverse_binary()),
                  a.is_zero() ? ff::fp2_t::zero() : a.inverse());
        EXPECT_EQ(ff::fp2_t(cuda::fp2_t(a).inverse_fast()),
                  a.is_zero() ? ff::fp2_t::zero() : a.inverse());
    }
}

// The approximated binary GCD (inverse_bingcd) finishes within its planned iterations, with the inverse, on
// random operands, the edges of the representation and values just below the modulus and powers of two
// (long runs of equal bits, where its 62-bit stand-ins are least like the operands).
template <class D, class H>
void check_bingcd(std::mt19937_64& rng, int random_count) {
    auto xs = operands<H>(rng, random_count);
    for (int k = 1; k < 64; k += 7) {
        H t = H::one();
        for (int i = 0; i < k; ++i) t = t + t;
        xs.push_back(-t + H::one());
        xs.push_back(t.inverse());
    }
    for (const H& a : xs) {
        D r;
        ASSERT_TRUE(D(a).inverse_bingcd(r)) << "did not finish";
        ASSERT_EQ(H(r), a.is_zero() ? H::zero() : a.inverse());
    }
}

TEST(DeviceFieldOnHost, ApproximatedBinaryGcdInverse) {
    std::mt19937_64 rng(7);
    check_bingcd<cuda::fp_t, ff::fp_t>(rng, 3000);
    check_bingcd<cuda::fr_t, ff::fr_t>(rng, 3000);
}

// The bucket formulas instantiated with the device field (as the GPU MSM runs them) agree with the host
// instantiation: accumulating affine points, adding buckets, doubling, small multiples.
TEST(DeviceFieldOnHost, XyzzBucketStepsWithTheDeviceField) {
    struct dev_point {
        cuda::fp_t x, y;
        bool is_identity() const { return x.is_zero() && y.is_zero(); }
    };
    using host_b = ec::xyzz_t<ff::fp_t>;
    using dev_b = ec::xyzz_t<cuda::fp_t>;
    std::mt19937_64 rng(5);
    std::vector<ec::g1_affine_t> pts;
    for (int i = 0; i < 24; ++i) pts.push_back(test::random_curve_point<ff::fp_t>(rng));
    pts.push_back(pts[3]);                          // a repeated point: the doubling branch
    pts.push_back(pts[5]);
    pts.back().y = -pts.back().y;                   // a negated point: the identity branch
    host_b h = host_b::identity(), h2 = host_b::identity();
    dev_b d = dev_b::identity(), d2 = dev_b::identity();
    for (size_t i = 0; i < pts.size(); ++i) {
        const dev_point q{cuda::fp_t(pts[i].x), cuda::fp_t(pts[i].y)};
        h.accumulate(pts[i]);
        d.accumulate(q);
        if (i % 2) {
            h2.accumulate(pts[i]);
            d2.accumulate(q);
        }
    }
    auto same = [](const host_b& a, const dev_b& b) {
        return ff::fp_t(b.x) == a.x && ff::fp_t(b.y) == a.y && ff::fp_t(b.zz) == a.zz &&
               ff::fp_t(b.zzz) == a.zzz;
    };
    EXPECT_TRUE(same(h, d));
    h.add(h2);
    d.add(d2);
    EXPECT_TRUE(same(h, d));
    h.dbl_in_place();
    d.dbl_in_place();
    EXPECT_TRUE(same(h, d));
    for (uint32_t k : {0u, 1u, 2u, 3u, 1000u, 65535u, 1u << 20}) EXPECT_TRUE(same(h.mul_small(k), d.mul_small(k)));
    // mul_small against repeated addition, on the host type.
    host_b sum = host_b::identity();
    for (int i = 0; i < 13; ++i) sum.add(h2);
    EXPECT_EQ(sum.to_jacobian(), h2.mul_small(13).to_jacobian());
}
