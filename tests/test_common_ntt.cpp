// NTT over Fr (common/ntt) against naive O(n^2) evaluation, round trips, cosets, and the Groth16
// quotient H = (A B - C) / Z against schoolbook polynomial arithmetic.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "common/ntt/ntt.hpp"

using namespace cuzk::ntt;
using cuzk::ff::fr_t;

namespace {

std::vector<fr_t> random_vec(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<fr_t> v(n);
    for (auto& x : v) x = fr_t::random(rng);
    return v;
}

fr_t eval_poly(const std::vector<fr_t>& coef, const fr_t& x) {
    fr_t acc = fr_t::zero();
    for (size_t i = coef.size(); i-- > 0;) acc = acc * x + coef[i];
    return acc;
}

// Evaluations of the polynomial with these coefficients at shift * omega^i.
std::vector<fr_t> naive_eval(const std::vector<fr_t>& coef, const fr_t& omega, const fr_t& shift) {
    std::vector<fr_t> out(coef.size());
    fr_t x = shift;
    for (auto& o : out) {
        o = eval_poly(coef, x);
        x *= omega;
    }
    return out;
}

// Small enough for the naive reference, and sizes on both sides of domain::BLOCK so the wide
// stages run too.
const unsigned kLogSizes[] = {0, 1, 2, 3, 5, 8, 12, 13, 14};

}  // namespace

TEST(NttDomain, RootHasExactOrderAndConstantsAreConsistent) {
    for (unsigned L : {0u, 1u, 5u, 20u, 27u, 32u}) {
        domain d(L);
        fr_t w = d.omega();
        for (unsigned i = 0; i < L; ++i) {
            EXPECT_FALSE(w.is_one()) << "order below 2^" << L;
            w = w.sqr();
        }
        EXPECT_TRUE(w.is_one());
        EXPECT_EQ(d.omega() * d.omega_inv(), fr_t::one());
        EXPECT_EQ(d.size_inv() * fr_t::from_u64(uint64_t(1) << L), fr_t::one());
        EXPECT_EQ(d.coset_gen(), fr_t::from_u64(7));
    }
    // The order-2^32 root is 7^t (also checked in test_common_field).
    EXPECT_EQ(root_of_unity(32).to_canonical(),
              cuzk::ff::parse_hex<4>("0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b"));
    EXPECT_THROW(domain(33), std::invalid_argument);
}

TEST(NttDomain, RootPowersMatchRepeatedMultiplication) {
    domain d(13);
    fr_t acc = fr_t::one();
    for (size_t e = 0; e < d.size(); ++e) {
        ASSERT_EQ(d.powers(false).pow(e), acc) << e;
        ASSERT_EQ(d.powers(true).pow(e) * acc, fr_t::one()) << e;
        acc *= d.omega();
    }
}

TEST(Ntt, ForwardMatchesNaiveEvaluation) {
    for (unsigned L : kLogSizes) {
        if (L > 12) continue;  // O(n^2) reference
        domain d(L);
        auto coef = random_vec(d.size(), L);
        auto want = naive_eval(coef, d.omega(), fr_t::one());
        auto x = coef;
        forward(d, x);
        EXPECT_EQ(x, want) << "log n = " << L;
    }
}

TEST(Ntt, InverseMatchesNaiveInterpolation) {
    for (unsigned L : {0u, 3u, 9u}) {
        domain d(L);
        auto coef = random_vec(d.size(), 100 + L);
        auto x = naive_eval(coef, d.omega(), fr_t::one());
        inverse(d, x);
        EXPECT_EQ(x, coef) << "log n = " << L;
    }
}

TEST(Ntt, InverseUndoesForwardOnAllSizes) {
    for (unsigned L : kLogSizes) {
        domain d(L);
        auto v = random_vec(d.size(), 200 + L);
        auto x = v;
        forward(d, x);
        if (d.size() > 1) {
            EXPECT_NE(x, v);
        }
        inverse(d, x);
        EXPECT_EQ(x, v) << "log n = " << L;
        coset_forward(d, x);
        coset_inverse(d, x);
        EXPECT_EQ(x, v) << "coset, log n = " << L;
    }
}

TEST(Ntt, WideStagesMatchNaiveEvaluationAtSampledPoints) {
    // 2^14 is past domain::BLOCK: check a sample of outputs against Horner evaluation.
    domain d(14);
    auto coef = random_vec(d.size(), 300);
    auto x = coef;
    forward(d, x);
    auto y = coef;
    coset_forward(d, y);
    for (size_t i : {size_t(0), size_t(1), size_t(4095), size_t(4096), size_t(12345), d.size() - 1}) {
        fr_t at = d.powers(false).pow(i);
        EXPECT_EQ(x[i], eval_poly(coef, at)) << i;
        EXPECT_EQ(y[i], eval_poly(coef, d.coset_gen() * at)) << i;
    }
}

TEST(Ntt, CosetForwardMatchesNaiveEvaluationAtShiftedPoints) {
    for (unsigned L : {0u, 1u, 4u, 10u}) {
        domain d(L);
        auto coef = random_vec(d.size(), 400 + L);
        auto want = naive_eval(coef, d.omega(), fr_t::from_u64(7));
        auto x = coef;
        coset_forward(d, x);
        EXPECT_EQ(x, want) << "log n = " << L;
        coset_inverse(d, x);
        EXPECT_EQ(x, coef);
    }
}

TEST(Ntt, DifAndDitCompose) {
    // dif leaves bit-reversed order, dit consumes it: dit(inverse) after dif(forward) is n * id.
    domain d(13);
    auto v = random_vec(d.size(), 500);
    auto x = v;
    dif(d, x, false);
    dit(d, x, true);
    for (auto& e : x) e *= d.size_inv();
    EXPECT_EQ(x, v);
}

TEST(Ntt, RejectsWrongLength) {
    domain d(4);
    std::vector<fr_t> x(15);
    EXPECT_THROW(forward(d, x), std::invalid_argument);
}

namespace {

// Schoolbook: coefficients of A B - C and the quotient by X^n - 1 (remainder must be zero).
void check_compute_h(unsigned L, uint64_t seed, bool divisible) {
    domain d(L);
    const size_t n = d.size();
    // A, B of degree < n and C = A B mod (X^n - 1) when divisible, so A B - C = H Z exactly.
    auto ac = random_vec(n, seed + 1), bc = random_vec(n, seed + 2);
    std::vector<fr_t> prod(2 * n, fr_t::zero());
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) prod[i + j] += ac[i] * bc[j];
    std::vector<fr_t> cc(n);
    for (size_t i = 0; i < n; ++i) cc[i] = prod[i] + prod[i + n];
    if (!divisible) cc[0] += fr_t::one();
    // (A B - C) / (X^n - 1): with C = AB mod (X^n - 1) the quotient is prod[n..2n).
    std::vector<fr_t> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = prod[i + n];

    auto a = naive_eval(ac, d.omega(), fr_t::one());
    auto b = naive_eval(bc, d.omega(), fr_t::one());
    auto c = naive_eval(cc, d.omega(), fr_t::one());
    compute_h(d, a, b, c);
    if (divisible) {
        EXPECT_EQ(a, want) << "log n = " << L;
        EXPECT_TRUE(a[n - 1].is_zero());  // deg H <= n - 2
    } else {
        EXPECT_NE(a, want) << "a non-divisible input must not look divisible";
    }
}

}  // namespace

TEST(NttComputeH, MatchesSchoolbookDivisionByVanishingPolynomial) {
    for (unsigned L : {1u, 2u, 4u, 7u}) check_compute_h(L, 600 + L, true);
    check_compute_h(5, 700, false);
}

TEST(NttComputeH, MatchesTransformPipelineOnWideDomain) {
    // Same result as the textbook pipeline built from the public transforms, past domain::BLOCK.
    domain d(13);
    auto a = random_vec(d.size(), 800), b = random_vec(d.size(), 801), c = random_vec(d.size(), 802);
    auto ea = a, eb = b, ec = c;
    inverse(d, ea);
    inverse(d, eb);
    inverse(d, ec);
    coset_forward(d, ea);
    coset_forward(d, eb);
    coset_forward(d, ec);
    for (size_t i = 0; i < d.size(); ++i) ea[i] = (ea[i] * eb[i] - ec[i]) * d.vanishing_on_coset_inv();
    coset_inverse(d, ea);
    compute_h(d, a, b, c);
    EXPECT_EQ(a, ea);
}
