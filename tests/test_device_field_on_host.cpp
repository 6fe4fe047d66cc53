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
#include "support/device_layout.hpp"

using namespace cuzk;

namespace {

using test::to_dev;
using test::to_host;

// Random elements and the edges of the representation: 0, 1, -1, 2, small values, 2^k, p - 2^k.
template <class H>
std::vector<H> operands(std::mt19937_64& rng, int random_count) {
    std::vector<H> v{H::zero(), H::one(), -H::one(), H::one() + H::one()};
    H two_k = H::one();
    for (int k = 0; k < 400; ++k) {
        if (k % 37 == 0) {
            v.push_back(two_k);
            v.push_back(-two_k);
        }
        two_k = two_k + two_k;
    }
    for (int i = 0; i < random_count; ++i) v.push_back(H::random(rng));
    return v;
}

template <class D, class H>
void check_field(int random_count, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto xs = operands<H>(rng, random_count);
    for (const H& a : xs) {
        const D da = to_dev<D>(a);
        ASSERT_EQ(to_host<H>(da.sqr()), a.sqr());
        ASSERT_EQ(to_host<H>(-da), -a);
        ASSERT_EQ(to_host<H>(da.dbl()), a + a);
        ASSERT_EQ(da.is_zero(), a.is_zero());
        for (const H& b : xs) {
            const D db = to_dev<D>(b);
            ASSERT_EQ(to_host<H>(da * db), a * b);
            ASSERT_EQ(to_host<H>(da + db), a + b);
            ASSERT_EQ(to_host<H>(da - db), a - b);
            if constexpr (std::is_same_v<D, cuda::dev_fp2>) {
                ASSERT_EQ(da.c0 == db.c0 && da.c1 == db.c1, a == b);
            } else {
                ASSERT_EQ(da == db, a == b);
            }
        }
    }
}

}  // namespace

TEST(DeviceFieldOnHost, FpMatchesTheCpuField) { check_field<cuda::dev_fp, ff::fp_t>(40, 1); }

TEST(DeviceFieldOnHost, FrMatchesTheCpuField) { check_field<cuda::dev_fr, ff::fr_t>(40, 2); }

// Every multiplication schedule (field.cuh's mont_mul; the default, paired, is also dev_fp and dev_fr above),
// which the GPU benchmark times against each other: same products, called and inlined.
TEST(DeviceFieldOnHost, EveryMultiplicationScheduleMatchesTheCpuField) {
    using cuda::mont_mul;
    check_field<cuda::dev_field<ff::fp_t, false, mont_mul::sos>, ff::fp_t>(30, 10);
    check_field<cuda::dev_field<ff::fr_t, true, mont_mul::sos>, ff::fr_t>(30, 9);
    check_field<cuda::dev_field<ff::fp_t, false, mont_mul::cios>, ff::fp_t>(30, 11);
    check_field<cuda::dev_field<ff::fp_t, false, mont_mul::even_odd>, ff::fp_t>(30, 12);
    check_field<cuda::dev_field<ff::fp_t, true, mont_mul::cios>, ff::fp_t>(10, 13);
    check_field<cuda::dev_field<ff::fr_t, true, mont_mul::cios>, ff::fr_t>(30, 14);
    check_field<cuda::dev_field<ff::fr_t, true, mont_mul::even_odd>, ff::fr_t>(30, 15);
    check_field<cuda::dev_field<ff::fp_t, false, mont_mul::paired>, ff::fp_t>(30, 16);
    check_field<cuda::dev_field<ff::fr_t, true, mont_mul::paired>, ff::fr_t>(30, 17);
    check_field<cuda::dev_field<ff::fp_t, false, mont_mul::hybrid>, ff::fp_t>(30, 18);
    check_field<cuda::dev_field<ff::fr_t, true, mont_mul::hybrid>, ff::fr_t>(30, 19);
    check_field<cuda::dev_field<ff::fp_t, false, mont_mul::karatsuba>, ff::fp_t>(30, 20);
    check_field<cuda::dev_field<ff::fr_t, true, mont_mul::karatsuba>, ff::fr_t>(30, 21);
}

// The hybrid and karatsuba products at the extremes of their bounds: operands whose limbs are nearly all
// ones (p - 1, and elements below 2^380 with most bits set), where hybrid's double-precision columns reach
// their largest sums, and operands whose two halves are equal or differ in either direction, where
// karatsuba's middle difference is zero or changes sign; products and squares both.
template <cuda::mont_mul Kind>
void check_wide_products_at_bounds(uint64_t seed) {
    using D = cuda::dev_field<ff::fp_t, false, Kind>;
    using R = cuda::dev_field<ff::fp_t, false, cuda::mont_mul::sos>;
    constexpr int H = D::N / 2;
    std::vector<ff::fp_t> xs{-ff::fp_t::one(), ff::fp_t::zero(), ff::fp_t::one()};
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 120; ++i) {
        D d = to_dev<D>(ff::fp_t::random(rng));
        if (i % 3 == 2) {
            d.v[H - 1] &= 0x0fffffffu;  // so that the mask below keeps the halves as they are made here
            for (int w = 0; w < H; ++w) d.v[H + w] = d.v[w];  // equal halves
            d.v[H] ^= uint32_t(i % 2);                     // or halves one apart
        } else {
            for (int w = 0; w < D::N; ++w) d.v[w] |= (i % 2 ? 0xffff0000u : 0x0000ffffu) | uint32_t(rng());
        }
        d.v[D::N - 1] &= 0x0fffffffu;  // < 2^380 < p: canonical
        xs.push_back(to_host<ff::fp_t>(d));
    }
    for (const auto& a : xs) {
        ASSERT_EQ(to_host<ff::fp_t>(to_dev<D>(a).sqr()), to_host<ff::fp_t>(to_dev<R>(a).sqr()));
        for (const auto& b : xs)
            ASSERT_EQ(to_host<ff::fp_t>(to_dev<D>(a) * to_dev<D>(b)), to_host<ff::fp_t>(to_dev<R>(a) * to_dev<R>(b)));
    }
}

TEST(DeviceFieldOnHost, HybridAndKaratsubaProductsAtTheirBounds) {
    check_wide_products_at_bounds<cuda::mont_mul::hybrid>(20);
    check_wide_products_at_bounds<cuda::mont_mul::karatsuba>(21);
}

TEST(DeviceFieldOnHost, Fp2MatchesTheCpuField) { check_field<cuda::dev_fp2, ff::fp2_t>(15, 3); }

TEST(DeviceFieldOnHost, InverseAndCanonicalForm) {
    std::mt19937_64 rng(4);
    for (const auto& a : operands<ff::fp_t>(rng, 10)) {
        const auto d = to_dev<cuda::dev_fp>(a);
        EXPECT_EQ(to_host<ff::fp_t>(d.inverse()), a.is_zero() ? ff::fp_t::zero() : a.inverse());
        EXPECT_EQ(to_host<ff::fp_t>(d.inverse_binary()), a.is_zero() ? ff::fp_t::zero() : a.inverse());
        EXPECT_EQ(to_host<ff::fp_t>(d.inverse_fast()), a.is_zero() ? ff::fp_t::zero() : a.inverse());
        // from_montgomery gives the canonical integer: the host's to_canonical limbs.
        const auto c = a.to_canonical();
        const auto got = to_host<ff::fp_t>(d.from_montgomery());
        EXPECT_EQ(std::memcmp(&c, &got, sizeof c), 0);
    }
    for (const auto& a : operands<ff::fr_t>(rng, 10)) {
        const auto c = a.to_canonical();
        const auto got = to_host<ff::fr_t>(to_dev<cuda::dev_fr>(a).from_montgomery());
        EXPECT_EQ(std::memcmp(&c, &got, sizeof c), 0);
        EXPECT_EQ(to_dev<cuda::dev_fr>(a).is_one(), a == ff::fr_t::one());
        EXPECT_EQ(to_host<ff::fr_t>(to_dev<cuda::dev_fr>(a).inverse_binary()), a.is_zero() ? ff::fr_t::zero() : a.inverse());
        EXPECT_EQ(to_host<ff::fr_t>(to_dev<cuda::dev_fr>(a).inverse_fast()), a.is_zero() ? ff::fr_t::zero() : a.inverse());
    }
    for (const auto& a : operands<ff::fp2_t>(rng, 5)) {
        EXPECT_EQ(to_host<ff::fp2_t>(to_dev<cuda::dev_fp2>(a).inverse()), a.is_zero() ? ff::fp2_t::zero() : a.inverse());
        EXPECT_EQ(to_host<ff::fp2_t>(to_dev<cuda::dev_fp2>(a).inverse_binary()),
                  a.is_zero() ? ff::fp2_t::zero() : a.inverse());
        EXPECT_EQ(to_host<ff::fp2_t>(to_dev<cuda::dev_fp2>(a).inverse_fast()),
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
        ASSERT_TRUE(to_dev<D>(a).inverse_bingcd(r)) << "did not finish";
        ASSERT_EQ(to_host<H>(r), a.is_zero() ? H::zero() : a.inverse());
    }
}

TEST(DeviceFieldOnHost, ApproximatedBinaryGcdInverse) {
    std::mt19937_64 rng(7);
    check_bingcd<cuda::dev_fp, ff::fp_t>(rng, 3000);
    check_bingcd<cuda::dev_fr, ff::fr_t>(rng, 3000);
}

// The bucket formulas instantiated with the device field (as the GPU MSM runs them) agree with the host
// instantiation: accumulating affine points, adding buckets, doubling, small multiples.
TEST(DeviceFieldOnHost, XyzzBucketStepsWithTheDeviceField) {
    struct dev_point {
        cuda::dev_fp x, y;
        bool is_identity() const { return x.is_zero() && y.is_zero(); }
    };
    using host_b = ec::xyzz_t<ff::fp_t>;
    using dev_b = ec::xyzz_t<cuda::dev_fp>;
    std::mt19937_64 rng(5);
    std::vector<ec::g1_affine_t> pts;
    for (int i = 0; i < 24; ++i) pts.push_back(test::random_curve_point<ff::fp_t>(rng));
    pts.push_back(pts[3]);                          // a repeated point: the doubling branch
    pts.push_back(pts[5]);
    pts.back().y = -pts.back().y;                   // a negated point: the identity branch
    host_b h = host_b::identity(), h2 = host_b::identity();
    dev_b d = dev_b::identity(), d2 = dev_b::identity();
    for (size_t i = 0; i < pts.size(); ++i) {
        const dev_point q{to_dev<cuda::dev_fp>(pts[i].x), to_dev<cuda::dev_fp>(pts[i].y)};
        h.accumulate(pts[i]);
        d.accumulate(q);
        if (i % 2) {
            h2.accumulate(pts[i]);
            d2.accumulate(q);
        }
    }
    auto same = [](const host_b& a, const dev_b& b) {
        return to_host<ff::fp_t>(b.x) == a.x && to_host<ff::fp_t>(b.y) == a.y && to_host<ff::fp_t>(b.zz) == a.zz &&
               to_host<ff::fp_t>(b.zzz) == a.zzz;
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
