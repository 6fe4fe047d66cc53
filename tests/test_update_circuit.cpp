// The SnapDeals (EmptySectorUpdate) circuit against rust-fil-proofs storage-proofs-update: the registered proofs
// and per-size constants, the published circuit totals of the test sizes (tests/circuit.rs) and of 32 GiB, the
// gadget counts of gadgets.rs (gen_challenge_bits, apex_por), the published parameter names, the challenge
// vectors of challenges.rs (which pin the gen-randomness Poseidon and its 2^40 domain tag); and a partition
// built from random trees (tree R old, new data, tree R new encoded with rho, tree D) is satisfied, exposes
// exactly generate_public_inputs' values, and is caught when one leaf or apex leaf changes.
#include <gtest/gtest.h>

#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/cs/checking_cs.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/cs/test_cs.hpp"
#include "common/merkle/merkle_tree.hpp"
#include "common/poseidon/poseidon.hpp"
#include "common/update/empty_sector_update_circuit.hpp"
#include "common/update/official_params.hpp"
#include "common/update/public_inputs.hpp"
#include "common/update/randomness_hash.hpp"
#include "common/update/update_gadgets.hpp"
#include "common/update/update_shape.hpp"
#include "common/util/errors.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::update;

constexpr uint64_t KiB_NODES = 1024 / 32;

struct counts {
    uint64_t constraints, inputs;
};

counts count(const update_shape& shape) {
    cs::counting_cs c;
    synthesize_empty_sector_update(c, shape, nullptr);
    return {c.num_constraints(), c.num_inputs()};
}

// ---- registered proofs and constants ------------------------------------------------------------

TEST(UpdateShape, RegisteredProofs) {
    const auto all = all_registered_update_proofs();
    ASSERT_EQ(all.size(), 5u);
    for (uint64_t id = 0; id < 5; ++id) EXPECT_EQ(registered_update_proof_by_id(id).id, id);
    const auto& p = registered_update_proof_by_name("StackedDrgUpdate32GiBV1");
    EXPECT_EQ(p.id, 3u);
    EXPECT_EQ(p.sector_size, uint64_t(32) << 30);
    EXPECT_EQ(&registered_update_proof_by_name("RegisteredUpdateProof_StackedDrg64GiBV1"),
              &registered_update_proof_by_id(4));
    EXPECT_EQ(find_registered_update_proof("StackedDrg32GiBV1"), nullptr);  // the PoRep name
    try {
        registered_update_proof_by_name("StackedDrgUpdate1GiBV1");
        FAIL() << "an unknown name was accepted";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("StackedDrgUpdate512MiBV1"), std::string::npos) << e.what();
    }
    EXPECT_THROW(registered_update_proof_by_id(5), input_error);
    EXPECT_THROW(update_shape_of(1u << 20), input_error);  // 32 MiB: no such circuit
}

TEST(UpdateShape, DerivedQuantities) {
    // Reference 3.2: 32 GiB (64 GiB).
    for (auto [id, bits, random, to_apex, tree] :
         {std::tuple{3u, 30u, 26u, 19u, porep::tree_shape{8, 8, 0}}, std::tuple{4u, 31u, 27u, 20u, porep::tree_shape{8, 8, 2}}}) {
        const update_shape s = registered_update_proof_by_id(id).shape();
        EXPECT_EQ(s.challenge_bit_len, bits);
        EXPECT_EQ(s.partition_count, 16u);
        EXPECT_EQ(s.partition_bit_len, 4u);
        EXPECT_EQ(s.challenge_count, 86u);
        EXPECT_EQ(s.random_bits_per_challenge(), random);
        EXPECT_EQ(s.challenges_per_digest(), 9u);
        EXPECT_EQ(s.digests_per_partition(), 10u);
        EXPECT_EQ(s.apex_leaf_count, 128u);
        EXPECT_EQ(s.apex_leaf_bit_len, 7u);
        EXPECT_EQ(s.tree_d_levels_to_apex(), to_apex);
        EXPECT_EQ(s.tree_r.sub, tree.sub);
        EXPECT_EQ(s.tree_r.top, tree.top);
        EXPECT_EQ(s.tree_r_arities().base_levels, 9u);
        EXPECT_EQ(s.h_default(), 10u);
        EXPECT_EQ(s.h_select(10), 8u);
        EXPECT_EQ(k_and_h_select(s, 5, 10), 128u + 5);
        EXPECT_THROW(s.h_select(6), input_error);
        EXPECT_THROW(k_and_h_select(s, 16, 10), input_error);
    }
    EXPECT_EQ(registered_update_proof_by_id(0).shape().partition_count, 1u);  // 2 KiB
    EXPECT_EQ(registered_update_proof_by_id(1).shape().partition_count, 4u);  // 8 MiB
    EXPECT_EQ(registered_update_proof_by_id(2).shape().partition_count, 16u);  // 512 MiB
    const update_shape kib = update_shape_of(KiB_NODES);
    EXPECT_EQ(kib.h_default(), 1u);
    EXPECT_EQ(kib.h_select(1), 1u);  // the first of six equal h
    EXPECT_EQ(kib.apex_leaf_count, 8u);
    EXPECT_EQ(kib.tree_r_arities().base_levels, 1u);
}

TEST(UpdateShape, OfficialParameterNames) {
    EXPECT_EQ(parameter_identifier(registered_update_proof_by_id(3).shape()),
              "empty_sector_update::PublicParams{ sector_nodes: 1073741824 }");
    EXPECT_EQ(official_params_stem(registered_update_proof_by_id(3).shape()),
              "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
              "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18");
    EXPECT_EQ(official_params_stem(registered_update_proof_by_id(4).shape()),
              "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
              "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7");
}

// ---- constraint counts ----------------------------------------------------------------------------

TEST(UpdateCircuitCount, PublishedTestSizes) {
    // storage-proofs-update tests/circuit.rs (feature isolated-testing).
    for (auto [kib, expected] : {std::pair{1u, 1248389ull}, std::pair{2u, 1705039ull}, std::pair{4u, 2165109ull},
                                 std::pair{8u, 2620359ull}, std::pair{16u, 6300021ull}, std::pair{32u, 6760091ull}}) {
        const counts c = count(update_shape_of(kib * KiB_NODES));
        EXPECT_EQ(c.constraints, expected) << kib << " KiB";
        EXPECT_EQ(c.inputs, 5u) << kib << " KiB";
    }
}

TEST(UpdateCircuitCount, Published32GiBAndDerived64GiB) {
    // The ignored test of tests/circuit.rs (BenchCS): 81 M constraints counted blank, about 1.4 s here.
    const counts c = count(registered_update_proof_by_name("StackedDrgUpdate32GiBV1").shape());
    EXPECT_EQ(c.constraints, 81049499u);
    EXPECT_EQ(c.inputs, 5u);
    // Not published (reference 3.5, derived): per challenge a tree R top level in each of the two openings
    // (2 + 311) and one more tree D level (2 + 45,379).
    EXPECT_EQ(count(registered_update_proof_by_name("StackedDrgUpdate64GiBV1").shape()).constraints, 85006101u);
}

// The gadget counts of gadgets.rs' tests: the constraints a gadget adds to a system that already holds its
// operands.
uint64_t gen_challenge_bits_constraints(const update_shape& s) {
    cs::counting_cs c;
    allocated_num comm_r_new = gadgets::alloc_num(c, ff::fr_t());
    allocated_num partition = gadgets::alloc_num(c, ff::fr_t());
    const uint64_t before = c.num_constraints();
    gen_challenge_bits(c, comm_r_new, partition, s.challenge_count, s.random_bits_per_challenge());
    return c.num_constraints() - before;
}

TEST(UpdateCircuitCount, GenChallengeBitsGadget) {
    // ALLOWED_SECTOR_SIZES 1 KiB .. 64 GiB: 568 per digest.
    const uint64_t nodes[] = {1u << 5, 1u << 6, 1u << 7, 1u << 8, 1u << 9, 1u << 10,
                              1u << 18, 1u << 19, 1u << 24, 1u << 30, 1ull << 31};
    const uint64_t expected[] = {568, 568, 568, 568, 568, 568, 568, 568, 4544, 5680, 5680};
    for (size_t i = 0; i < std::size(nodes); ++i)
        EXPECT_EQ(gen_challenge_bits_constraints(update_shape_of(nodes[i])), expected[i]) << nodes[i] << " nodes";
}

uint64_t apex_por_constraints(unsigned leaves, unsigned partition_levels) {
    cs::counting_cs c;
    allocated_num comm_d = gadgets::alloc_num(c, ff::fr_t());
    std::vector<boolean> bits;
    for (unsigned i = 0; i < partition_levels; ++i) bits.push_back(boolean::alloc(c, false));
    std::vector<allocated_num> apex, path;
    for (unsigned i = 0; i < leaves; ++i) apex.push_back(gadgets::alloc_num(c, ff::fr_t()));
    for (unsigned i = 0; i < partition_levels; ++i) path.push_back(gadgets::alloc_num(c, ff::fr_t()));
    const uint64_t before = c.num_constraints();
    apex_por(c, apex, bits, path, comm_d);
    return c.num_constraints() - before;
}

TEST(UpdateCircuitCount, ApexPorGadget) {
    EXPECT_EQ(apex_por_constraints(8, 0), 317654u);     // 1 .. 8 KiB
    EXPECT_EQ(apex_por_constraints(128, 1), 5808515u);  // 16, 32 KiB
    EXPECT_EQ(apex_por_constraints(16, 2), 771448u);    // 16 KiB cut into 4 partitions
    EXPECT_EQ(apex_por_constraints(8, 3), 453797u);     // and into 8
    // 32 GiB: 127 hashes and 4 partition levels (reference 3.5: 5,944,658).
    EXPECT_EQ(apex_por_constraints(128, 4), 5944658u);
}

// ---- gadgets against their native counterparts ---------------------------------------------------

TEST(UpdateGadgets, GenChallengeBitsAreTheNativeChallenges) {
    std::mt19937_64 rng(7);
    for (uint64_t nodes : {uint64_t(1) << 9, uint64_t(1) << 30}) {
        const update_shape s = update_shape_of(nodes);
        const ff::fr_t comm_r = ff::fr_t::random(rng);
        const unsigned k = s.partition_count - 1;
        cs::test_cs t;
        allocated_num comm_r_new = gadgets::alloc_num(t, comm_r);
        allocated_num partition = gadgets::alloc_num(t, ff::fr_t::from_u64(k));
        const auto bits = gen_challenge_bits(t, comm_r_new, partition, s.challenge_count, s.random_bits_per_challenge());
        ASSERT_TRUE(t.is_satisfied()) << *t.which_is_unsatisfied();
        const std::vector<uint64_t> native = partition_challenges(s, comm_r, k);
        ASSERT_EQ(bits.size(), native.size());
        for (size_t c = 0; c < native.size(); ++c) {
            uint64_t v = 0;
            for (size_t b = 0; b < bits[c].size(); ++b) v |= uint64_t(bits[c][b].value()) << b;
            EXPECT_EQ(v | (uint64_t(k) << s.random_bits_per_challenge()), native[c]) << nodes << " nodes, challenge " << c;
            EXPECT_EQ(native[c] >> s.random_bits_per_challenge(), k);
        }
    }
}

// The first random element rust-fil-proofs' tests draw: XorShiftRng::from_seed(TEST_SEED) (rand_xorshift:
// four little-endian u32 words of state; a u64 is two u32 draws, low first), then blstrs' Scalar::random (four
// u64 limbs, the top bit cleared, canonical value below r or draw again).
ff::fr_t rust_test_seed_scalar() {
    const uint8_t seed[16] = {0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d,
                              0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5};
    uint32_t s[4];
    for (int i = 0; i < 4; ++i)
        s[i] = uint32_t(seed[4 * i]) | uint32_t(seed[4 * i + 1]) << 8 | uint32_t(seed[4 * i + 2]) << 16 |
               uint32_t(seed[4 * i + 3]) << 24;
    auto next_u32 = [&s] {
        const uint32_t t = s[0] ^ (s[0] << 11);
        s[0] = s[1], s[1] = s[2], s[2] = s[3];
        s[3] = s[3] ^ (s[3] >> 19) ^ (t ^ (t >> 8));
        return s[3];
    };
    for (;;) {
        ff::fr_t::repr_t raw;
        for (auto& limb : raw) {
            const uint64_t lo = next_u32();
            limb = lo | uint64_t(next_u32()) << 32;
        }
        raw[3] &= ~uint64_t(0) >> 1;
        ff::fr_t out;
        if (ff::fr_t::from_repr_checked(raw, out)) return out;
    }
}

TEST(UpdateGadgets, ChallengesMatchRustFilProofsVectors) {
    // challenges.rs test_challenges_against_hardcoded: the first five challenges of partition k for one random
    // comm_r_new. They pin the gen-randomness hash (domain tag 2^40) and the bit layout.
    const ff::fr_t comm_r_new = rust_test_seed_scalar();
    struct vec {
        uint64_t nodes;
        unsigned k;
        uint64_t first[5];
    };
    const vec vectors[] = {
        {1u << 5, 0, {21, 7, 3, 31, 0}},
        {1u << 6, 0, {53, 51, 56, 3, 0}},
        {1u << 7, 0, {117, 25, 62, 0, 72}},
        {1u << 9, 1, {286, 308, 493, 510, 508}},
        {1u << 10, 1, {542, 666, 955, 927, 911}},
        {1u << 18, 1, {78878, 130797, 112892, 93994, 78379}},
        {1u << 24, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
        {1u << 30, 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
        {1u << 30, 15, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
        {1ull << 31, 14, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
    };
    for (const vec& v : vectors) {
        const std::vector<uint64_t> c = partition_challenges(update_shape_of(v.nodes), comm_r_new, v.k);
        ASSERT_GE(c.size(), 5u);
        EXPECT_EQ(std::vector<uint64_t>(c.begin(), c.begin() + 5), std::vector<uint64_t>(v.first, v.first + 5))
            << v.nodes << " nodes, partition " << v.k;
    }
}

TEST(UpdateGadgets, ChallengeHighPicksTheSelectedH) {
    const update_shape s = registered_update_proof_by_id(3).shape();
    const uint64_t c = 0x2bcd1234 & ((1u << 30) - 1);
    for (unsigned h : s.hs) {
        cs::test_cs t;
        std::vector<boolean> c_bits, sel;
        for (unsigned i = 0; i < 30; ++i) c_bits.push_back(boolean::alloc(t, (c >> i) & 1));
        for (unsigned i = 0; i < H_SELECT_BITS; ++i) sel.push_back(boolean::alloc(t, (s.h_select(h) >> i) & 1));
        const allocated_num high = challenge_high(t, c_bits, sel, s.hs);
        EXPECT_TRUE(t.is_satisfied());
        EXPECT_EQ(high.value, ff::fr_t::from_u64(challenge_high(s, c, h))) << "h " << h;
    }
}

TEST(UpdateGadgets, RandomnessHashTag) {
    // Same permutation as the Merkle-tree arity-2 hash, another domain tag: the outputs differ.
    const ff::fr_t a = ff::fr_t::from_u64(1), b = ff::fr_t::from_u64(2);
    EXPECT_NE(gen_randomness_hash(a, b), poseidon::hash2(a, b));
    EXPECT_EQ(gen_randomness_constants().domain_tag, ff::fr_t::from_u64(uint64_t(1) << 40));
    cs::test_cs t;
    const allocated_num x = gadgets::alloc_num(t, a), y = gadgets::alloc_num(t, b);
    const allocated_num h = gen_randomness_hash_circuit(t, x, y);
    EXPECT_TRUE(t.is_satisfied());
    EXPECT_EQ(h.value, gen_randomness_hash(a, b));
    EXPECT_EQ(t.num_constraints(), 311u);
}

// ---- a consistent witness --------------------------------------------------------------------------

// A sector updated as storage-proofs-update's tests do: random old replica and new data, the new replica
// encoded node by node with rho of the node's h high bits, the three trees and the commitments.
struct sample_update {
    update_shape shape;
    unsigned h;
    std::vector<ff::fr_t> r_old, d_new, r_new;
    merkle::merkle_tree tree_r_old, tree_d, tree_r_new;
    ff::fr_t comm_c, comm_r_old, comm_r_new;

    // Tree D's level |level| (0 = leaves), hashed again from the leaves: merkle_tree does not expose levels.
    std::vector<ff::fr_t> tree_d_level(unsigned level) const {
        std::vector<ff::fr_t> row = d_new;
        for (unsigned l = 0; l < level; ++l) {
            std::vector<ff::fr_t> up(row.size() / 2);
            for (size_t i = 0; i < up.size(); ++i) up[i] = merkle::sha256_node(std::span<const ff::fr_t>(row).subspan(2 * i, 2));
            row = std::move(up);
        }
        return row;
    }

    update_partition_witness partition(unsigned k) const {
        update_partition_witness w;
        w.k = k;
        w.h = h;
        w.comm_r_old = comm_r_old, w.comm_d_new = tree_d.root(), w.comm_r_new = comm_r_new;
        w.comm_c = comm_c, w.root_r_old = tree_r_old.root(), w.root_r_new = tree_r_new.root();
        const std::vector<ff::fr_t> apex_row = tree_d_level(shape.tree_d_levels_to_apex());
        w.apex_leaves.assign(apex_row.begin() + size_t(k) * shape.apex_leaf_count,
                             apex_row.begin() + size_t(k + 1) * shape.apex_leaf_count);
        auto siblings = [](const std::vector<merkle::path_level>& path) {
            std::vector<std::vector<ff::fr_t>> out;
            for (const auto& level : path) out.push_back(level.siblings);
            return out;
        };
        for (uint64_t c : partition_challenges(shape, comm_r_new, k)) {
            update_challenge_witness ch;
            ch.leaf_r_old = r_old[c];
            ch.leaf_d_new = d_new[c];
            ch.path_r_old = siblings(tree_r_old.proof(c));
            ch.path_r_new = siblings(tree_r_new.proof(c));
            for (const auto& level : tree_d.proof(c)) ch.path_d_new.push_back(level.siblings.at(0));
            w.challenges.push_back(std::move(ch));
        }
        return w;
    }
};

std::vector<ff::fr_t> random_nodes(std::mt19937_64& rng, uint64_t n) {
    std::vector<ff::fr_t> out(n);
    for (auto& x : out) x = ff::fr_t::random(rng);
    return out;
}

sample_update make_sample(uint64_t nodes, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const update_shape shape = update_shape_of(nodes);
    std::vector<ff::fr_t> r_old = random_nodes(rng, nodes), d_new = random_nodes(rng, nodes);
    const auto& t = shape.tree_r;
    merkle::merkle_tree tree_r_old = merkle::merkle_tree::poseidon(r_old, t.base, t.sub, t.top);
    merkle::merkle_tree tree_d = merkle::merkle_tree::sha256_binary(d_new);
    const ff::fr_t comm_c = ff::fr_t::random(rng);
    const ff::fr_t comm_r_old = poseidon::hash2(comm_c, tree_r_old.root());
    const unsigned h = shape.h_default();
    const ff::fr_t phi_value = phi(tree_d.root(), comm_r_old);
    std::vector<ff::fr_t> r_new(nodes);
    for (uint64_t i = 0; i < nodes; ++i) r_new[i] = r_old[i] + d_new[i] * rho(phi_value, challenge_high(shape, i, h));
    merkle::merkle_tree tree_r_new = merkle::merkle_tree::poseidon(r_new, t.base, t.sub, t.top);
    const ff::fr_t comm_r_new = poseidon::hash2(comm_c, tree_r_new.root());
    return sample_update{shape, h, std::move(r_old), std::move(d_new), std::move(r_new), std::move(tree_r_old),
                         std::move(tree_d), std::move(tree_r_new), comm_c, comm_r_old, comm_r_new};
}

struct checked {
    bool satisfied;
    std::string first_failure;
    std::vector<ff::fr_t> inputs;  // without ONE
    uint64_t constraints;
};

checked synthesize_checked(const update_shape& shape, const update_partition_witness& w) {
    cs::checking_cs c;
    synthesize_empty_sector_update(c, shape, &w);
    auto in = c.inputs();
    return {c.is_satisfied(), c.first_failure().value_or(""), std::vector<ff::fr_t>(in.begin() + 1, in.end()),
            c.num_constraints()};
}

TEST(UpdateCircuitWitness, SatisfiedAndInputsAreTheGenerators) {
    // 1 KiB: one partition, 8-4-0 tree R; 16 KiB: partition 1 of 2 (a partition path, k in the inputs), 8-8-0.
    for (auto [nodes, k] : {std::pair{KiB_NODES, 0u}, std::pair{16 * KiB_NODES, 1u}}) {
        const sample_update s = make_sample(nodes, nodes);
        const update_partition_witness w = s.partition(k);
        const checked c = synthesize_checked(s.shape, w);
        EXPECT_TRUE(c.satisfied) << nodes << " nodes: " << c.first_failure;
        EXPECT_EQ(c.inputs, generate_public_inputs(s.shape, k, s.h, s.comm_r_old, s.tree_d.root(), s.comm_r_new));
        EXPECT_EQ(c.constraints, count(s.shape).constraints);
    }
}

TEST(UpdateCircuitWitness, ChangedValuesAreCaught) {
    const sample_update s = make_sample(KiB_NODES, 5);
    const update_partition_witness good = s.partition(0);

    update_partition_witness w = good;
    w.challenges[3].leaf_r_old += ff::fr_t::one();
    checked c = synthesize_checked(s.shape, w);
    EXPECT_FALSE(c.satisfied);
    EXPECT_NE(c.first_failure.find("challenge 3"), std::string::npos) << c.first_failure;

    w = good;
    w.challenges[5].leaf_d_new += ff::fr_t::one();  // breaks tree D and, through the encoding, tree R new
    EXPECT_FALSE(synthesize_checked(s.shape, w).satisfied);

    w = good;
    w.apex_leaves[2] += ff::fr_t::one();
    c = synthesize_checked(s.shape, w);
    EXPECT_FALSE(c.satisfied);
    EXPECT_NE(c.first_failure.find("apex_por"), std::string::npos) << c.first_failure;

    w = good;
    w.comm_r_new += ff::fr_t::one();  // other challenges, and comm_r_new != H(comm_c, root_r_new)
    EXPECT_FALSE(synthesize_checked(s.shape, w).satisfied);
}

TEST(UpdateCircuitWitness, MisshapenWitnessesAreRefused) {
    const sample_update s = make_sample(KiB_NODES, 9);
    update_partition_witness w = s.partition(0);
    w.challenges.pop_back();
    cs::checking_cs c;
    EXPECT_THROW(synthesize_empty_sector_update(c, s.shape, &w), std::invalid_argument);
    w = s.partition(0);
    w.challenges[1].path_r_old[0].pop_back();
    cs::checking_cs c2;
    EXPECT_THROW(synthesize_empty_sector_update(c2, s.shape, &w), std::invalid_argument);
    w = s.partition(0);
    w.h = 10;
    cs::checking_cs c3;
    EXPECT_THROW(synthesize_empty_sector_update(c3, s.shape, &w), input_error);
}

}  // namespace
