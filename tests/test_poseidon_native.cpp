// Native Poseidon against neptune: round numbers, LFSR constants, MDS structure, the optimized
// permutation against the textbook one, and hash outputs published in neptune's tests.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "common/poseidon/constants.hpp"
#include "common/poseidon/grain_lfsr.hpp"
#include "common/poseidon/mds.hpp"
#include "common/poseidon/poseidon.hpp"
#include "common/poseidon/round_constants.hpp"
#include "common/poseidon/round_numbers.hpp"

namespace {

using cuzk::ff::fr_t;
namespace ps = cuzk::poseidon;

// neptune's scalar_from_u64s: four little-endian 64-bit limbs of the canonical value.
fr_t from_limbs(std::array<uint64_t, 4> limbs) {
    fr_t::repr_t r{limbs[0], limbs[1], limbs[2], limbs[3]};
    fr_t out;
    EXPECT_TRUE(fr_t::from_repr_checked(r, out));
    return out;
}

std::vector<fr_t> counting_preimage(size_t arity) {
    std::vector<fr_t> v(arity);
    for (size_t i = 0; i < arity; ++i) v[i] = fr_t::from_u64(i);
    return v;
}

std::vector<fr_t> random_preimage(std::mt19937_64& rng, size_t n) {
    std::vector<fr_t> v(n);
    for (auto& x : v) x = fr_t::random(rng);
    return v;
}

// ---- round numbers -------------------------------------------------------------------------

TEST(PoseidonRoundNumbers, StandardMatchesNeptuneForFilecoinWidths) {
    // filecoin-porep.md section 2, from neptune src/round_numbers.rs.
    const std::pair<size_t, size_t> cases[] = {{2, 55}, {4, 56}, {8, 57}, {11, 57}, {36, 60}};
    for (auto [arity, rp] : cases) {
        ps::round_numbers rn = ps::neptune_round_numbers(arity);
        EXPECT_EQ(rn.full, 8u) << "arity " << arity;
        EXPECT_EQ(rn.partial, rp) << "arity " << arity;
    }
}

TEST(PoseidonRoundNumbers, StrengthenedMatchesNeptuneTable) {
    // neptune src/lib.rs, test_strengthened_round_numbers (read in argumentcomputer/neptune, the
    // maintained fork of filecoin-project/neptune).
    const std::pair<size_t, size_t> cases[] = {{1, 69},  {2, 69},  {3, 70},  {4, 70},  {5, 70},
                                                {6, 70},  {7, 72},  {8, 72},  {9, 72},  {10, 72},
                                                {11, 72}, {16, 74}, {24, 74}, {36, 75}, {64, 77}};
    for (auto [arity, rp] : cases) {
        ps::round_numbers rn = ps::neptune_round_numbers(arity, ps::strength::strengthened);
        EXPECT_EQ(rn.full, 8u) << "arity " << arity;
        EXPECT_EQ(rn.partial, rp) << "arity " << arity;
    }
}

// ---- round constants -------------------------------------------------------------------------

TEST(PoseidonRoundConstants, LfsrReproducesReferenceScriptOutputForWidth9) {
    // argumentcomputer/neptune parameters/round_constants-1-1-255-9-8-57-73EDA7...0001.txt: the
    // output of the Poseidon authors' create_rcs_grain.sage with field=1 sbox=1 n=255 t=9 R_F=8
    // R_P=57 (585 constants), the file neptune's round-constant test compares against.
    const std::vector<fr_t> rc = ps::generate_round_constants(1, 1, 255, 9, 8, 57);
    ASSERT_EQ(rc.size(), 585u);
    EXPECT_EQ(rc[0], fr_t::from_hex("0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9"));
    EXPECT_EQ(rc[1], fr_t::from_hex("0x0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39"));
    EXPECT_EQ(rc[2], fr_t::from_hex("0x513ad11016ab7bb8c7ce9ae51256040e062487edf7168d206ba1b86dfe963629"));
    EXPECT_EQ(rc[3], fr_t::from_hex("0x11f7cb649a0e7509a23d14173a5de7151173d08eacba753b99826b8b3779200a"));
    EXPECT_EQ(rc[81], fr_t::from_hex("0x000ea4931e2e4a143d8d4133c34dfe0289a38985467694d492933f3a65f107a1"));
    EXPECT_EQ(rc[583], fr_t::from_hex("0x5861985c6ad8159e1a4f056d02df583d9c79c96bae8c3b9313812b4e0b3bda60"));
    EXPECT_EQ(rc[584], fr_t::from_hex("0x3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c"));
}

TEST(PoseidonRoundConstants, LfsrDependsOnEveryParameter) {
    const fr_t base = ps::generate_round_constants(1, 1, 255, 9, 8, 57)[0];
    EXPECT_NE(base, ps::generate_round_constants(1, 0, 255, 9, 8, 57)[0]);  // reference script's S-box tag
    EXPECT_NE(base, ps::generate_round_constants(1, 1, 255, 9, 8, 56)[0]);
    EXPECT_NE(base, ps::generate_round_constants(1, 1, 255, 12, 8, 57)[0]);
}

TEST(PoseidonRoundConstants, ConstantSetHasNeptuneShape) {
    for (size_t arity : {2u, 4u, 8u, 11u}) {
        const ps::poseidon_constants& c = ps::constants_for(arity);
        EXPECT_EQ(c.width, arity + 1);
        EXPECT_EQ(c.domain_tag, fr_t::from_u64((uint64_t(1) << arity) - 1));
        EXPECT_EQ(c.round_constants.size(), (c.full_rounds + c.partial_rounds) * c.width);
        EXPECT_EQ(c.compressed_round_constants.size(), c.full_rounds * c.width + c.partial_rounds);
        EXPECT_EQ(c.sparse.size(), c.partial_rounds);
        // Width 9 is the reference file above: the cached set uses the same LFSR stream.
        if (arity == 8) {
            EXPECT_EQ(c.round_constants[0],
                      fr_t::from_hex("0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9"));
        }
    }
}

TEST(PoseidonRoundConstants, ConstantsForReturnsOneSharedSetAcrossThreads) {
    const ps::poseidon_constants* seen[4] = {};
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) threads.emplace_back([&, i] { seen[i] = &ps::constants_for(4); });
    for (auto& t : threads) t.join();
    for (int i = 1; i < 4; ++i) EXPECT_EQ(seen[i], seen[0]);
    EXPECT_THROW(ps::constants_for(0), std::invalid_argument);
    EXPECT_THROW(ps::constants_for(ps::MAX_ARITY + 1), std::invalid_argument);
}

// ---- MDS -----------------------------------------------------------------------------------------

TEST(PoseidonMds, CauchyEntriesAreInversesOfIPlusJPlusT) {
    for (size_t t : {3u, 5u, 9u, 12u}) {
        const ps::square_matrix m = ps::cauchy_mds(t);
        for (size_t i = 0; i < t; ++i)
            for (size_t j = 0; j < t; ++j) EXPECT_EQ(m(i, j) * fr_t::from_u64(i + j + t), fr_t::one());
        EXPECT_EQ(m, ps::transpose(m));
        EXPECT_TRUE(ps::is_identity(m * ps::invert(m)));
    }
}

TEST(PoseidonMds, SparseFactorsMultiplyBackToTheMatrix) {
    const ps::square_matrix m = ps::cauchy_mds(5);
    EXPECT_EQ(ps::prime_factor(m) * ps::double_prime_factor(m), m);
    // Three partial layers: pre_sparse * M''_0 * M''_1 * M''_2 == M^3 when the S-box is the
    // identity (linear layers only).
    ps::sparse_factorization f = ps::factor_to_sparse(m, 3);
    ps::square_matrix lhs = f.pre_sparse;
    for (const auto& s : f.sparse) lhs = lhs * s.to_dense();
    EXPECT_EQ(lhs, m * m * m * m);
}

TEST(PoseidonMds, InvertRejectsSingularMatrix) {
    ps::square_matrix m(2);
    m(0, 0) = fr_t::one();
    m(0, 1) = fr_t::from_u64(2);
    m(1, 0) = fr_t::from_u64(2);
    m(1, 1) = fr_t::from_u64(4);
    EXPECT_THROW(ps::invert(m), std::domain_error);
}

// ---- the permutation -------------------------------------------------------------------------

TEST(PoseidonHash, OptimizedEqualsTextbookOnRandomInputs) {
    std::mt19937_64 rng(8);
    for (size_t arity : {1u, 2u, 3u, 4u, 8u, 11u, 16u}) {
        const ps::poseidon_constants& c = ps::constants_for(arity);
        for (int k = 0; k < 5; ++k) {
            std::vector<fr_t> in = random_preimage(rng, arity);
            EXPECT_EQ(ps::hash(c, in), ps::hash_textbook(c, in)) << "arity " << arity;
        }
    }
}

TEST(PoseidonHash, WholeStateOfOptimizedPermutationEqualsTextbook) {
    std::mt19937_64 rng(9);
    const ps::poseidon_constants& c = ps::constants_for(8);
    std::vector<fr_t> a = random_preimage(rng, c.width), b = a;
    ps::permute(c, a.data());
    ps::permute_textbook(c, b.data());
    EXPECT_EQ(a, b);
}

struct published_vector {
    size_t arity;
    std::array<uint64_t, 4> standard;
    std::array<uint64_t, 4> strengthened;
};

// neptune src/poseidon.rs, test hash_values: Merkle-tree hash of the preimage [0, 1, .., arity-1]
// ("simple test vectors to ensure results don't change"), Strength::Standard and Strengthened.
// Read in argumentcomputer/neptune, the maintained fork of filecoin-project/neptune (the
// filecoin-project copy is not in the search index); the vectors predate the fork.
const published_vector NEPTUNE_HASH_VALUES[] = {
    {2,
     {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b},
     {0x793dbaf54552cd69, 0x5278ecbf17040ea6, 0xc48b36ecc4cab748, 0x33d28a753baee41b}},
    {4,
     {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
     {0x4650ee190212aa9a, 0xe5113a254d6f5c7e, 0x54013bdaf68ba4c2, 0x09d8207c51ca3f43}},
    {8,
     {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
     {0x9f0c3c93c3fc894e, 0xe843d4cfba662df1, 0xd69aae8fe1cb63e8, 0x69e61465981ae17e}},
    {11,
     {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
     {0x778af344d8f9e8b7, 0xc94fe2ca3f46d433, 0x07abbcf9b406e8d8, 0x28bb83ff439753c0}},
    {16,
     {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a},
     {0x3cc2664c5fd6ae07, 0xd7431eaaa5e43189, 0x43ba5f418c6ef01d, 0x68d7856395aa217e}},
    {24,
     {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15},
     {0x1df1da58827cb39d, 0x0566756b7b80fb10, 0x222eb82c6666be3d, 0x086e4e81a35bfd92}},
    {36,
     {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f},
     {0x636401e9371dc311, 0x8f69e35a702ed188, 0x64d73b2ddc03d43b, 0x609f8c6fe45cc054}},
};

TEST(PoseidonHash, StandardMatchesNeptunePublishedVectors) {
    for (const auto& v : NEPTUNE_HASH_VALUES) {
        const auto in = counting_preimage(v.arity);
        EXPECT_EQ(ps::hash(in), from_limbs(v.standard)) << "arity " << v.arity;
        EXPECT_EQ(ps::hash_textbook(ps::constants_for(v.arity), in), from_limbs(v.standard)) << "arity " << v.arity;
    }
}

TEST(PoseidonHash, StrengthenedMatchesNeptunePublishedVectors) {
    for (const auto& v : NEPTUNE_HASH_VALUES) {
        EXPECT_EQ(ps::hash(counting_preimage(v.arity), ps::strength::strengthened), from_limbs(v.strengthened))
            << "arity " << v.arity;
    }
}

// rust-fil-proofs filecoin-hashers/src/poseidon.rs, test_poseidon_hasher: a binary Poseidon
// Merkle tree over the leaves [1, 0, 0, 1]; node 4 = H(1, 0) and the root are published.
TEST(PoseidonHash, BinaryTreeMatchesFilecoinHashersVectors) {
    const fr_t one = fr_t::one(), zero = fr_t::zero();
    const fr_t n4 = ps::hash2(one, zero);
    const fr_t n5 = ps::hash2(zero, one);
    EXPECT_EQ(n4, from_limbs({0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3}));
    EXPECT_EQ(ps::hash2(n4, n5),
              from_limbs({0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb}));
}

// rust-fil-proofs filecoin-hashers/src/poseidon.rs, test_hash_md: 71 ones folded Merkle-Damgard
// style with arity 36 (acc = H(acc, next 35 elements)).
TEST(PoseidonHash, MerkleDamgardArity36MatchesFilecoinHashersVector) {
    const ps::poseidon_constants& c = ps::constants_for(36);
    std::vector<fr_t> data(71, fr_t::one());
    fr_t acc = data[0];
    for (size_t at = 1; at < data.size(); at += 35) {
        std::vector<fr_t> block(36);
        block[0] = acc;
        for (size_t i = 0; i < 35; ++i) block[1 + i] = data[at + i];
        acc = ps::hash(c, block);
    }
    EXPECT_EQ(acc, from_limbs({0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7}));
}

TEST(PoseidonHash, Hash2AndHashManyAgreeWithHash) {
    std::mt19937_64 rng(10);
    const fr_t a = fr_t::random(rng), b = fr_t::random(rng);
    const fr_t pair[2] = {a, b};
    EXPECT_EQ(ps::hash2(a, b), ps::hash(pair));
    EXPECT_NE(ps::hash2(a, b), ps::hash2(b, a));

    const ps::poseidon_constants& c = ps::constants_for(8);
    std::vector<fr_t> pre = random_preimage(rng, 8 * 5);
    std::vector<fr_t> out(5);
    ps::hash_many(c, pre, out);
    for (size_t k = 0; k < 5; ++k) EXPECT_EQ(out[k], ps::hash(c, std::span(pre).subspan(k * 8, 8)));
    EXPECT_THROW(ps::hash_many(c, pre, std::span(out).first(4)), std::invalid_argument);
    EXPECT_THROW(ps::hash(c, std::span(pre).first(7)), std::invalid_argument);
}

}  // namespace
