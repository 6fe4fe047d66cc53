// The x86-64 MULX/ADCX/ADOX Montgomery multiplication (common/ff/mont_mul_x86.hpp), which
// operator*= dispatches to for Fp and Fr on ADX/BMI2 hosts, against the portable CIOS
// (mont_field::mul_portable) and against an independent bit-serial modular reduction.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/ff/bls12_381.hpp"

using namespace cuzk::ff;

namespace {

// Uniform Montgomery representation below p, drawn directly (no multiplication involved).
template <class F>
F random_raw(std::mt19937_64& rng) {
    for (;;) {
        typename F::repr_t c{};
        for (size_t i = 0; i < F::N; ++i) c[i] = rng();
        size_t top = F::BITS % 64;
        if (top != 0) c[F::N - 1] &= (uint64_t(1) << top) - 1;
        if (!geq(c, F::MODULUS)) return F::from_raw(c);
    }
}

template <class F>
typename F::repr_t p_minus(const typename F::repr_t& d) {
    auto r = F::MODULUS;
    sub_borrow(r, d);
    return r;
}

// Raw values that stress carries: 0, 1, small values, p-1, p-2^k for every k, powers of two, and
// words of all ones under the top limb of p.
template <class F>
std::vector<F> edge_values() {
    using repr = typename F::repr_t;
    std::vector<F> out;
    repr one{};
    one[0] = 1;
    out.push_back(F::zero());
    out.push_back(F::from_raw(one));
    out.push_back(F::one());  // R mod p
    out.push_back(F::from_raw(F::R2));
    repr small{};
    small[0] = 2;
    out.push_back(F::from_raw(small));
    for (size_t k = 0; k + 1 < F::BITS; ++k) {
        repr d{};
        d[k / 64] = uint64_t(1) << (k % 64);
        out.push_back(F::from_raw(p_minus<F>(d)));  // p - 2^k
        out.push_back(F::from_raw(d));              // 2^k
    }
    out.push_back(F::from_raw(p_minus<F>(one)));  // p - 1
    repr ones{};
    for (size_t i = 0; i + 1 < F::N; ++i) ones[i] = ~uint64_t(0);
    out.push_back(F::from_raw(ones));
    ones[F::N - 1] = F::MODULUS[F::N - 1] - 1;  // just below p's top limb, all ones beneath
    out.push_back(F::from_raw(ones));
    repr top_only{};
    top_only[F::N - 1] = F::MODULUS[F::N - 1];  // p with the low limbs cleared
    out.push_back(F::from_raw(top_only));
    for (const F& v : out) EXPECT_FALSE(geq(v.raw(), F::MODULUS)) << "edge value not below p";
    return out;
}

template <class F>
void expect_same_product(const F& a, const F& b) {
    F expect = F::mul_portable(a, b);
    F got = a;
    got *= b;
    ASSERT_EQ(got.raw(), expect.raw());
    ASSERT_FALSE(geq(got.raw(), F::MODULUS)) << "product not fully reduced";
}

template <class F>
void check_random_pairs(uint64_t seed, int count) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < count; ++i) {
        F a = random_raw<F>(rng), b = random_raw<F>(rng);
        F expect = F::mul_portable(a, b);
        F got = a * b;
        if (got.raw() != expect.raw()) {
            FAIL() << "pair " << i << " differs from the portable CIOS";
        }
    }
}

template <class F>
void check_edge_pairs(uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto edges = edge_values<F>();
    for (const F& a : edges) {
        for (const F& b : edges) expect_same_product(a, b);
        for (int i = 0; i < 16; ++i) {
            F r = random_raw<F>(rng);
            expect_same_product(a, r);
            expect_same_product(r, a);
        }
        if (::testing::Test::HasFatalFailure()) return;
    }
}

template <class F>
void check_aliasing(uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto values = edge_values<F>();
    for (int i = 0; i < 1000; ++i) values.push_back(random_raw<F>(rng));
    for (const F& v : values) {
        F sq = F::mul_portable(v, v);
        F x = v;
        x *= x;  // result, multiplicand and multiplier are one object
        ASSERT_EQ(x.raw(), sq.raw());
        ASSERT_EQ(v.sqr().raw(), sq.raw());
        F y = v;
        y = y * y;
        ASSERT_EQ(y.raw(), sq.raw());
    }
}

// x mod p for a 2N-limb x, one bit at a time: shares no code with either multiplication.
template <class F>
typename F::repr_t mod_slow(const std::vector<uint64_t>& x) {
    constexpr size_t N = F::N;
    limbs<N + 1> rem{}, p{};
    for (size_t i = 0; i < N; ++i) p[i] = F::MODULUS[i];
    for (size_t bit = 64 * x.size(); bit-- > 0;) {
        uint64_t carry = (x[bit / 64] >> (bit % 64)) & 1;
        for (size_t i = 0; i < N + 1; ++i) {
            uint64_t next = rem[i] >> 63;
            rem[i] = (rem[i] << 1) | carry;
            carry = next;
        }
        if (geq(rem, p)) sub_borrow(rem, p);
    }
    typename F::repr_t r{};
    for (size_t i = 0; i < N; ++i) r[i] = rem[i];
    return r;
}

template <class F>
std::vector<uint64_t> mul_wide(const typename F::repr_t& a, const typename F::repr_t& b) {
    std::vector<uint64_t> out(2 * F::N, 0);
    for (size_t i = 0; i < F::N; ++i) {
        unsigned __int128 carry = 0;
        for (size_t j = 0; j < F::N; ++j) {
            unsigned __int128 t = (unsigned __int128)a[i] * b[j] + out[i + j] + carry;
            out[i + j] = uint64_t(t);
            carry = t >> 64;
        }
        out[i + F::N] = uint64_t(carry);
    }
    return out;
}

// Montgomery's defining identity: r * 2^(64N) = a * b (mod p), with r < p.
template <class F>
void check_against_bit_serial(uint64_t seed, int count) {
    std::mt19937_64 rng(seed);
    auto edges = edge_values<F>();
    for (int i = 0; i < count; ++i) {
        F a = i < int(edges.size()) ? edges[i] : random_raw<F>(rng);
        F b = random_raw<F>(rng);
        F r = a * b;
        ASSERT_FALSE(geq(r.raw(), F::MODULUS));
        std::vector<uint64_t> r_shifted(2 * F::N, 0);
        for (size_t k = 0; k < F::N; ++k) r_shifted[F::N + k] = r.l[k];
        ASSERT_EQ(mod_slow<F>(r_shifted), mod_slow<F>(mul_wide<F>(a.raw(), b.raw()))) << "pair " << i;
    }
}

// a + b and a - b mod p through bigint.hpp's limb helpers, which share no code with operator+=
// and operator-= (assembly on x86 hosts, the u128 loops elsewhere).
template <class F>
void check_add_sub(uint64_t seed, int count) {
    std::mt19937_64 rng(seed);
    auto values = edge_values<F>();
    for (int i = 0; i < count; ++i) values.push_back(random_raw<F>(rng));
    auto check_pair = [](const F& a, const F& b) {
        auto sum = a.raw();
        add_carry(sum, b.raw());  // no carry out: p leaves the top bit free
        if (geq(sum, F::MODULUS)) sub_borrow(sum, F::MODULUS);
        auto diff = a.raw();
        if (sub_borrow(diff, b.raw())) add_carry(diff, F::MODULUS);
        ASSERT_EQ((a + b).raw(), sum);
        ASSERT_EQ((a - b).raw(), diff);
        F x = a;
        x += x;  // aliasing
        ASSERT_EQ(x.raw(), (a + a).raw());
        x = a;
        x -= x;
        ASSERT_TRUE(x.is_zero());
    };
    std::mt19937_64 pick(seed + 1);
    for (size_t i = 0; i < values.size(); ++i) {
        check_pair(values[i], values[pick() % values.size()]);
        check_pair(values[pick() % values.size()], values[i]);
        if (::testing::Test::HasFatalFailure()) return;
    }
}

}  // namespace

// Only meaningful on targets with ADX and BMI2; elsewhere the portable CIOS is the only path and the
// comparisons below check it against itself, which still exercises the dispatch.
#if defined(__x86_64__) && defined(__ADX__) && defined(__BMI2__)
TEST(FieldX86, AssemblyPathIsCompiledWhenTheTargetHasAdxAndBmi2) {
#if !defined(CUZK_FF_HAVE_X86_MONT_MUL)
    FAIL() << "ADX/BMI2 target but mont_mul_x86.hpp did not enable the assembly";
#endif
}
#endif

TEST(FieldX86, FpMatchesPortableOnMillionRandomPairs) { check_random_pairs<fp_t>(11, 1'000'000); }
TEST(FieldX86, FrMatchesPortableOnMillionRandomPairs) { check_random_pairs<fr_t>(12, 1'000'000); }
TEST(FieldX86, FpMatchesPortableOnEdgeValues) { check_edge_pairs<fp_t>(13); }
TEST(FieldX86, FrMatchesPortableOnEdgeValues) { check_edge_pairs<fr_t>(14); }
TEST(FieldX86, FpSquaringInPlaceMatchesPortable) { check_aliasing<fp_t>(15); }
TEST(FieldX86, FrSquaringInPlaceMatchesPortable) { check_aliasing<fr_t>(16); }
TEST(FieldX86, FpSatisfiesMontgomeryIdentity) { check_against_bit_serial<fp_t>(17, 3000); }
TEST(FieldX86, FrSatisfiesMontgomeryIdentity) { check_against_bit_serial<fr_t>(18, 3000); }
TEST(FieldX86, FpAddSubMatchLimbArithmetic) { check_add_sub<fp_t>(19, 200'000); }
TEST(FieldX86, FrAddSubMatchLimbArithmetic) { check_add_sub<fr_t>(20, 200'000); }
