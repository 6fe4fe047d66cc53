// Merkle inclusion gadgets against native trees: the root computed in the circuit must equal the
// root of a tree built natively (OpenSSL SHA256 for tree D, native Poseidon for trees C/R), for every
// shape the PoRep uses; a wrong sibling or index must leave the system unsatisfied; the path bits
// must reach the public input as the leaf index; and the per-level costs must be rust-fil-proofs'.
#include <gtest/gtest.h>

#include <random>

#include "common/cs/counting_cs.hpp"
#include "common/cs/test_cs.hpp"
#include "common/gadgets/insertion.hpp"
#include "common/gadgets/merkle_inclusion.hpp"
#include "common/merkle/merkle_tree.hpp"

namespace {

using namespace cuzk;
using ff::fr_t;
using gadgets::merkle_arities;
using gadgets::tree_hasher;

std::vector<fr_t> random_leaves(std::mt19937_64& rng, size_t n) {
    std::vector<fr_t> v(n);
    for (fr_t& x : v) x = fr_t::random(rng);
    return v;
}

// Synthesizes one inclusion of leaf |index| with |path| against |root|; returns the system.
cs::test_cs prove_inclusion(tree_hasher h, const merkle_arities& shape, const fr_t& leaf, const fr_t& root,
                            const std::vector<merkle::path_level>& path) {
    cs::test_cs sys;
    auto leaf_num = gadgets::alloc_num(sys, leaf);
    auto root_num = gadgets::alloc_num(sys, root);
    gadgets::enforce_merkle_inclusion(sys, h, shape, leaf_num, root_num, path);
    return sys;
}

struct poseidon_shape {
    unsigned base, sub, top;
    size_t leaves;
    unsigned base_levels;
};

TEST(MerkleInclusion, Sha256BinaryTreeRootMatchesNative) {
    std::mt19937_64 rng(11);
    auto leaves = random_leaves(rng, 16);
    auto tree = merkle::merkle_tree::sha256_binary(leaves);
    merkle_arities shape{2, 4, 0, 0};
    for (uint64_t idx : {0u, 5u, 15u}) {
        auto path = tree.proof(idx);
        ASSERT_EQ(merkle::root_from_proof(merkle::hasher::sha256, leaves[idx], path), tree.root());
        auto sys = prove_inclusion(tree_hasher::sha256, shape, leaves[idx], tree.root(), path);
        EXPECT_TRUE(sys.is_satisfied()) << *sys.which_is_unsatisfied();
        ASSERT_EQ(sys.num_inputs(), 2u);
        EXPECT_EQ(sys.inputs()[1], fr_t::from_u64(idx));
    }
}

TEST(MerkleInclusion, Sha256WrongSiblingOrRootIsUnsatisfied) {
    std::mt19937_64 rng(12);
    auto leaves = random_leaves(rng, 8);
    auto tree = merkle::merkle_tree::sha256_binary(leaves);
    merkle_arities shape{2, 3, 0, 0};
    auto path = tree.proof(6);
    path[1].siblings[0] += fr_t::one();
    EXPECT_FALSE(prove_inclusion(tree_hasher::sha256, shape, leaves[6], tree.root(), path).is_satisfied());
    auto good = tree.proof(6);
    EXPECT_FALSE(prove_inclusion(tree_hasher::sha256, shape, leaves[6], tree.root() + fr_t::one(), good)
                     .is_satisfied());
    // The right siblings at the wrong position give another root.
    auto swapped = tree.proof(6);
    swapped[0].index ^= 1;
    EXPECT_FALSE(prove_inclusion(tree_hasher::sha256, shape, leaves[6], tree.root(), swapped).is_satisfied());
}

TEST(MerkleInclusion, PoseidonTreeShapesRootMatchNative) {
    std::mt19937_64 rng(13);
    // 8-0-0 (2 KiB), 8-8-0 (32 GiB), 8-8-2 (64 GiB), 8-4-0 and 8-4-2 (rust-fil-proofs test shapes).
    const poseidon_shape shapes[] = {
        {8, 0, 0, 64, 2}, {8, 8, 0, 512, 2}, {8, 8, 2, 1024, 2}, {8, 4, 0, 256, 2}, {8, 4, 2, 512, 2}, {2, 0, 0, 8, 3},
    };
    for (const auto& s : shapes) {
        auto leaves = random_leaves(rng, s.leaves);
        auto tree = merkle::merkle_tree::poseidon(leaves, s.base, s.sub, s.top);
        merkle_arities shape{s.base, s.base_levels, s.sub, s.top};
        for (uint64_t idx : {uint64_t(0), uint64_t(s.leaves / 3), uint64_t(s.leaves - 1)}) {
            auto path = tree.proof(idx);
            ASSERT_EQ(path.size(), shape.levels());
            auto sys = prove_inclusion(tree_hasher::poseidon, shape, leaves[idx], tree.root(), path);
            EXPECT_TRUE(sys.is_satisfied()) << s.base << "-" << s.sub << "-" << s.top << " leaf " << idx << ": "
                                            << *sys.which_is_unsatisfied();
            EXPECT_EQ(sys.inputs()[1], fr_t::from_u64(idx));

            auto bad = path;
            bad.back().siblings.front() += fr_t::one();
            EXPECT_FALSE(prove_inclusion(tree_hasher::poseidon, shape, leaves[idx], tree.root(), bad).is_satisfied());
        }
    }
}

TEST(MerkleInclusion, WrongPathShapeIsRejected) {
    merkle_arities shape{8, 2, 0, 0};
    std::vector<merkle::path_level> path(2);
    path[0].siblings.assign(7, fr_t());
    path[1].siblings.assign(6, fr_t());
    EXPECT_THROW(prove_inclusion(tree_hasher::poseidon, shape, fr_t(), fr_t(), path), std::invalid_argument);
}

// Per level: log2(arity) index bits, the insertion (2 / 8 / 22 constraints), the hash; then one
// packing constraint and the root equality.
TEST(MerkleInclusion, ConstraintCountsPerLevel) {
    // Poseidon arity 8: 3 + 22 + 505 = 530 per level.
    EXPECT_EQ(gadgets::merkle_inclusion_constraints(tree_hasher::poseidon, {8, 9, 8, 0}), 10u * 530 + 2);
    // Arity 2: 1 + 2 + 311; arity 4: 2 + 8 + 377.
    EXPECT_EQ(gadgets::merkle_inclusion_constraints(tree_hasher::poseidon, {8, 1, 4, 2}), 530u + 387 + 314 + 2);
}

TEST(MerkleInclusion, InsertPlacesElementAtEveryIndex) {
    std::mt19937_64 rng(14);
    for (unsigned log_size = 1; log_size <= 4; ++log_size) {
        const unsigned size = 1u << log_size;
        for (unsigned index = 0; index < size; ++index) {
            cs::test_cs sys;
            std::vector<gadgets::allocated_num> elements;
            for (unsigned i = 0; i + 1 < size; ++i) elements.push_back(gadgets::alloc_num(sys, fr_t::random(rng)));
            auto x = gadgets::alloc_num(sys, fr_t::random(rng));
            std::vector<gadgets::boolean> bits;
            for (unsigned i = 0; i < log_size; ++i) bits.push_back(gadgets::boolean::alloc(sys, (index >> i) & 1));
            size_t before = sys.num_constraints();
            auto out = gadgets::insert(sys, x, bits, elements);
            ASSERT_EQ(out.size(), size);
            for (unsigned pos = 0; pos < size; ++pos) {
                const fr_t& want = pos < index ? elements[pos].value : pos == index ? x.value : elements[pos - 1].value;
                EXPECT_EQ(out[pos].value, want) << "size " << size << " index " << index << " pos " << pos;
                EXPECT_EQ(sys.value(out[pos].var), want);
            }
            EXPECT_TRUE(sys.is_satisfied());
            size_t cost = sys.num_constraints() - before;
            size_t expected = size == 2 ? 2 : size == 4 ? 8 : size == 8 ? 22 : size * (size - 1);
            EXPECT_EQ(cost, expected) << "size " << size;
        }
    }
}

}  // namespace
