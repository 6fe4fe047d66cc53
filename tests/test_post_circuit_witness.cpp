// The fallback PoSt circuit against its witness: partitions built from random trees R (sample_post.hpp) are
// satisfied and expose exactly generate_public_inputs' values (as rust-fil-proofs' fallback_circuit.rs asserts),
// for WindowPoSt under both challenge rules, a padded partition and WinningPoSt's 66 unrolled slots; a changed
// comm_r or leaf is caught, and vanilla proofs of the wrong shape are refused naming the sector.
#include <gtest/gtest.h>

#include <random>

#include "common/cs/counting_cs.hpp"
#include "common/cs/test_cs.hpp"
#include "common/post/fallback_circuit.hpp"
#include "common/post/fallback_witness.hpp"
#include "common/post/public_inputs.hpp"
#include "common/post/sample_post.hpp"
#include "common/util/errors.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::post;

// The circuit's inputs when synthesized with |circuit|'s witness, and whether every constraint holds.
struct synthesized {
    std::vector<ff::fr_t> inputs;  // without ONE
    bool satisfied;
    size_t constraints;
};

synthesized synthesize(const post_partition_circuit& circuit) {
    cs::test_cs t;
    circuit.synthesize(t);
    auto in = t.inputs();
    return {std::vector<ff::fr_t>(in.begin() + 1, in.end()), t.is_satisfied(), t.num_constraints()};
}

TEST(PostCircuitWitness, WindowPartitionIsSatisfiedAndInputsAreTheGenerators) {
    for (const char* name : {"StackedDrgWindow2KiBV1_1", "StackedDrgWindow2KiBV1"}) {
        const auto& proof = registered_post_proof_by_name(name);
        const sample_post sample = make_sample_post(proof, "window", 2);
        const auto circuit = sample.circuit();
        const auto s = synthesize(circuit);
        EXPECT_TRUE(s.satisfied) << name;
        EXPECT_EQ(s.inputs.size(), proof.public_inputs_per_partition()) << name;
        EXPECT_EQ(s.inputs, circuit.public_inputs()) << name;
        cs::counting_cs blank;
        post_partition_circuit(proof).synthesize(blank);
        EXPECT_EQ(blank.num_constraints(), s.constraints) << name;
    }
}

TEST(PostCircuitWitness, VersionsChallengeDifferentLeaves) {
    // Under 1.0.0 the second sector's challenge indices are 10..19, under 1.2.0 0..9.
    const auto& v1 = registered_post_proof_by_name("StackedDrgWindow2KiBV1");
    const sample_post sample = make_sample_post(v1, "versions", 2);
    const auto sectors = public_sectors_of(sample.vanilla);
    const auto in_v1 = generate_public_inputs(v1, sample.randomness, sectors, 0);
    const auto in_v12 = generate_public_inputs(v1, graph::api_version::v1_2, sample.randomness, sectors, 0);
    EXPECT_EQ(in_v1[11], sectors[1].comm_r);
    EXPECT_EQ(in_v1[12], ff::fr_t::from_u64(leaf_challenge(sample.randomness, sectors[1].id, 10, 64)));
    EXPECT_EQ(in_v12[12], ff::fr_t::from_u64(leaf_challenge(sample.randomness, sectors[1].id, 0, 64)));
    // The first sector is index 0 under both rules.
    EXPECT_TRUE(std::equal(in_v1.begin(), in_v1.begin() + 11, in_v12.begin()));
}

TEST(PostCircuitWitness, OneSectorIsRepeatedToFillThePartition) {
    const auto& proof = registered_post_proof_by_name("StackedDrgWindow2KiBV1_1");
    const sample_post sample = make_sample_post(proof, "padding", 1);
    const auto circuit = sample.circuit();
    ASSERT_EQ(circuit.witness()->sectors.size(), 2u);
    const auto s = synthesize(circuit);
    EXPECT_TRUE(s.satisfied);
    EXPECT_EQ(s.inputs, circuit.public_inputs());
    EXPECT_TRUE(std::equal(s.inputs.begin(), s.inputs.begin() + 11, s.inputs.begin() + 11));
}

TEST(PostCircuitWitness, WinningUnrollsSixtySixSlots) {
    const auto& proof = registered_post_proof_by_name("StackedDrgWinning2KiBV1");
    const sample_post sample = make_sample_post(proof, "winning", 1);
    ASSERT_EQ(sample.vanilla[0].sectors[0].inclusion_proofs.size(), 66u);
    const auto circuit = sample.circuit();
    EXPECT_EQ(circuit.witness()->sectors.size(), 66u);
    const auto s = synthesize(circuit);
    EXPECT_TRUE(s.satisfied);
    ASSERT_EQ(s.inputs.size(), 132u);
    EXPECT_EQ(s.inputs, circuit.public_inputs());
    // Slot i proves challenge i: comm_r, then H(randomness || id || i) mod 64.
    const uint64_t id = sample.vanilla[0].sector_id;
    for (uint64_t i = 0; i < 66; i += 13)
        EXPECT_EQ(s.inputs[2 * i + 1], ff::fr_t::from_u64(leaf_challenge(sample.randomness, id, i, 64))) << i;
}

TEST(PostCircuitWitness, EightMiBAndSmallTreeShapes) {
    const auto& proof = registered_post_proof_by_name("StackedDrgWindow8MiBV1_1");
    const auto s = synthesize(make_sample_post(proof, "8mib", 1).circuit());
    EXPECT_TRUE(s.satisfied);
    // The sub and top levels of the fallback_circuit.rs shapes, with a witness of their own.
    for (auto [sub, top] : {std::pair{4u, 0u}, std::pair{4u, 2u}}) {
        std::mt19937_64 rng(sub * 10 + top);
        const porep::tree_shape tree{8, sub, top};
        const fallback_circuit_shape shape{1, 5, gadgets::merkle_arities{8, 2, sub, top}};
        const sample_replica r = make_sample_replica(64 * sub * (top ? top : 1), tree, rng);
        sector_slot slot{r.comm_r, r.comm_c, r.tree_r.root(), {}};
        const uint64_t leaves[] = {0, 5, 63, 64, r.tree_r.leaves() - 1};
        for (uint64_t leaf : leaves) slot.challenges.push_back({r.tree_r.leaf(leaf), r.tree_r.proof(leaf)});
        fallback_witness w{{slot}};
        cs::test_cs t;
        synthesize_fallback_post(t, shape, &w);
        EXPECT_TRUE(t.is_satisfied()) << sub << "-" << top;
        // ONE, comm_r, then the packed path bits of each challenge: its leaf index.
        for (size_t j = 0; j < 5; ++j) EXPECT_EQ(t.inputs()[2 + j], ff::fr_t::from_u64(leaves[j])) << j;
    }
}

TEST(PostCircuitWitness, WrongValuesAreCaught) {
    const auto& proof = registered_post_proof_by_name("StackedDrgWindow2KiBV1_1");
    const sample_post sample = make_sample_post(proof, "tamper", 2);
    // Another comm_r: the Poseidon check fails.
    {
        auto bad = sample;
        bad.vanilla[1].comm_r[0] ^= 1;
        EXPECT_FALSE(synthesize(bad.circuit()).satisfied);
    }
    // Another leaf: its inclusion fails.
    {
        auto bad = sample;
        bad.vanilla[0].sectors[0].inclusion_proofs[4].leaf[0] ^= 1;
        EXPECT_FALSE(synthesize(bad.circuit()).satisfied);
    }
    // Another randomness: satisfied, but the inputs are not the verifier's.
    {
        auto other = sample.randomness;
        other[0] ^= 1;
        const auto s = synthesize(sample.circuit());
        EXPECT_NE(s.inputs, generate_public_inputs(proof, other, public_sectors_of(sample.vanilla), 0));
    }
}

TEST(PostCircuitWitness, BadVanillaProofsNameTheSector) {
    const auto& proof = registered_post_proof_by_name("StackedDrgWindow2KiBV1_1");
    const sample_post sample = make_sample_post(proof, "bad", 2);
    auto expect_error = [&](std::vector<fallback_sector_proof> v, const std::string& part) {
        try {
            witness_of(proof, v);
            ADD_FAILURE() << "accepted; expected an error with '" << part << "'";
        } catch (const input_error& e) {
            EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
        }
    };
    const std::string second = "sector " + std::to_string(sample.vanilla[1].sector_id) + " (vanilla proof 1)";
    {
        auto v = sample.vanilla;
        std::swap(v[0], v[1]);
        expect_error(v, "ascending");
    }
    {
        auto v = sample.vanilla;
        v.push_back(v.back());
        v.back().sector_id += 1;
        expect_error(v, "at most 2 sectors");
    }
    {
        auto v = sample.vanilla;
        v[1].sectors[0].inclusion_proofs.pop_back();
        expect_error(v, second + ": 9 inclusion proofs");
    }
    {
        auto v = sample.vanilla;
        v[1].sectors[0].inclusion_proofs[2].base_path.pop_back();
        expect_error(v, second + ": inclusion proof 2: base path: 1 levels, tree R has 2");
    }
    {
        auto v = sample.vanilla;
        v[1].sectors[0].inclusion_proofs[3].base_path[1].index = 8;
        expect_error(v, "inclusion proof 3: base path[1]: 7 hashes and index 8");
    }
    {
        auto v = sample.vanilla;
        v[1].sectors[0].inclusion_proofs[0].kind = c1::merkle_proof_kind::sub;
        expect_error(v, "a Sub Merkle proof");
    }
    {
        auto v = sample.vanilla;
        v[0].sectors[0].comm_c.fill(0xff);
        expect_error(v, "comm_c: not a field element");
    }
}

}  // namespace
