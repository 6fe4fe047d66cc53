// The multiplication schedules of field_schedules.cuh compiled for the host (the carry flag emulated, as
// tests/test_device_field_on_host.cpp runs the production one) against the CPU field (common/ff), called
// and inlined, so that what field_bench.cu times on a GPU is known to compute the right products.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "bench/gpu/experiments/field_schedules.cuh"
#include "common/ff/bls12_381.hpp"
#include "tests/support/field_operands.hpp"

using namespace cuzk;
namespace ex = cuzk::cuda::experiments;

namespace {

template <class H>
std::vector<H> operands(std::mt19937_64& rng, int random_count) {
    return test::field_operands<H>(rng, random_count);
}

template <class D, class H>
void check_products(int random_count, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto xs = operands<H>(rng, random_count);
    for (const H& a : xs) {
        const D da(a);
        ASSERT_EQ(H(da.sqr()), a.sqr());
        for (const H& b : xs) ASSERT_EQ(H(da * D(b)), a * b);
    }
}

template <bool Inline, class Schedule>
using fp_as = cuda::dev_field<ff::fp_t, Inline, Schedule>;
template <bool Inline, class Schedule>
using fr_as = cuda::dev_field<ff::fr_t, Inline, Schedule>;

// The hybrid and karatsuba products at the extremes of their bounds: operands whose limbs are nearly all
// ones (p - 1, and elements below 2^380 with most bits set), where hybrid's double-precision columns reach
// their largest sums, and operands whose two halves are equal or differ in either direction, where
// karatsuba's middle difference is zero or changes sign; products and squares both, against sos.
template <class Schedule>
void check_wide_products_at_bounds(uint64_t seed) {
    using D = fp_as<false, Schedule>;
    using R = fp_as<false, ex::sos>;
    constexpr int H = D::N / 2;
    std::vector<ff::fp_t> xs{-ff::fp_t::one(), ff::fp_t::zero(), ff::fp_t::one()};
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 120; ++i) {
        D d = D(ff::fp_t::random(rng));
        if (i % 3 == 2) {
            d.v[H - 1] &= 0x0fffffffu;  // so that the mask below keeps the halves as they are made here
            for (int w = 0; w < H; ++w) d.v[H + w] = d.v[w];  // equal halves
            d.v[H] ^= uint32_t(i % 2);                     // or halves one apart
        } else {
            for (int w = 0; w < D::N; ++w) d.v[w] |= (i % 2 ? 0xffff0000u : 0x0000ffffu) | uint32_t(rng());
        }
        d.v[D::N - 1] &= 0x0fffffffu;  // < 2^380 < p: canonical
        xs.push_back(ff::fp_t(d));
    }
    for (const auto& a : xs) {
        ASSERT_EQ(ff::fp_t(D(a).sqr()), ff::fp_t(R(a).sqr()));
        for (const auto& b : xs)
            ASSERT_EQ(ff::fp_t(D(a) * D(b)), ff::fp_t(R(a) * R(b)));
    }
}

}  // namespace

TEST(FieldSchedules, EveryScheduleMatchesTheCpuField) {
    check_products<fp_as<false, ex::sos>, ff::fp_t>(30, 10);
    check_products<fr_as<true, ex::sos>, ff::fr_t>(30, 9);
    check_products<fp_as<false, ex::hybrid>, ff::fp_t>(30, 18);
    check_products<fr_as<true, ex::hybrid>, ff::fr_t>(30, 19);
    check_products<fp_as<false, ex::karatsuba>, ff::fp_t>(30, 20);
    check_products<fr_as<true, ex::karatsuba>, ff::fr_t>(30, 21);
}

TEST(FieldSchedules, HybridAndKaratsubaProductsAtTheirBounds) {
    check_wide_products_at_bounds<ex::hybrid>(20);
    check_wide_products_at_bounds<ex::karatsuba>(21);
}
