// The partition circuit with a real witness: a sector sealed natively (SDR labels, trees D/C/R),
// challenges derived from a seed, openings for every challenge. The synthesized system must be
// satisfied, its public inputs must equal generate_public_inputs (what a verifier computes), and any
// tampering with the witness (a parent label, the data leaf, a sibling, the challenge) must break it.
#include <gtest/gtest.h>

#include <random>

#include "common/cs/checking_cs.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/porep/native_seal.hpp"
#include "common/porep/public_inputs.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/stacked_circuit.hpp"
#include "common/porep/synthetic_witness.hpp"

namespace {

using namespace cuzk;
using ff::fr_t;

porep::bytes32 random_bytes(std::mt19937_64& rng) {
    porep::bytes32 b{};
    for (auto& x : b) x = uint8_t(rng());
    return b;
}

struct fixture {
    const porep::registered_proof& proof = porep::registered_proof_by_name("StackedDrg2KiBV1_1");
    graph::stacked_graph graph = porep::graph_of(proof);
    porep::stacked_circuit_shape shape = porep::stacked_circuit_shape::of(proof);
    porep::sealed_sector sector;
    porep::seal_public_inputs pub;
    porep::partition_witness witness;

    static porep::sealed_sector seal(const porep::registered_proof& p, const graph::stacked_graph& g,
                                     std::mt19937_64& rng, fr_t& replica_id) {
        std::vector<fr_t> data(p.nodes);
        for (fr_t& d : data) {
            d = fr_t::random(rng);
        }
        auto tree_d = merkle::merkle_tree::sha256_binary(data);
        porep::bytes32 comm_d{};
        tree_d.root().to_bytes_le(comm_d.data());
        replica_id = porep::generate_replica_id(random_bytes(rng), 7, random_bytes(rng), comm_d, p.porep_id());
        return porep::seal_sector(g, p.layers, p.tree, replica_id, std::move(data));
    }

    explicit fixture(std::mt19937_64& rng, fr_t replica_id = {}) : sector(seal(proof, graph, rng, replica_id)) {
        pub.replica_id = sector.replica_id;
        pub.comm_d = sector.comm_d;
        pub.comm_r = sector.comm_r;
        pub.seed = random_bytes(rng);
        auto challenges =
            porep::derive_challenges(proof.nodes, proof.challenges_per_partition, pub.replica_id, pub.seed, 0);
        witness = porep::make_partition_witness(sector, graph, challenges);
    }

    cs::checking_cs synthesize(const porep::partition_witness& w) const {
        cs::checking_cs sys;
        porep::synthesize_stacked_partition(sys, shape, &w);
        return sys;
    }
};

TEST(StackedCircuitWitness, SealedSectorSatisfiesAndInputsMatchVerifier) {
    std::mt19937_64 rng(2024);
    fixture f(rng);
    cs::checking_cs sys = f.synthesize(f.witness);
    EXPECT_TRUE(sys.is_satisfied()) << *sys.first_failure();

    cs::counting_cs blank;
    porep::synthesize_stacked_partition(blank, f.shape, nullptr);
    EXPECT_EQ(sys.num_constraints(), blank.num_constraints());
    EXPECT_EQ(sys.num_aux(), blank.num_aux());
    ASSERT_EQ(sys.num_inputs(), blank.num_inputs());
    ASSERT_EQ(sys.num_inputs(), 40u);

    auto expected = porep::generate_public_inputs(f.proof, f.graph, f.pub, 0);
    ASSERT_EQ(expected.size() + 1, sys.num_inputs());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(sys.inputs()[i + 1], expected[i]) << "input " << i + 1;
    std::printf("2 KiB partition: %llu constraints\n", (unsigned long long)sys.num_constraints());
}

TEST(StackedCircuitWitness, TamperedWitnessIsUnsatisfied) {
    std::mt19937_64 rng(2025);
    fixture f(rng);
    {
        auto w = f.witness;  // a parent's label in layer 2: its column hash no longer opens in tree C
        w.challenges[0].exp_parents[3].rows[1] += fr_t::one();
        EXPECT_FALSE(f.synthesize(w).is_satisfied());
    }
    {
        auto w = f.witness;
        w.challenges[1].data_leaf += fr_t::one();
        EXPECT_FALSE(f.synthesize(w).is_satisfied());
    }
    {
        auto w = f.witness;
        w.challenges[0].comm_r_last_path[0].siblings[2] += fr_t::one();
        EXPECT_FALSE(f.synthesize(w).is_satisfied());
    }
    {
        auto w = f.witness;  // another node's index with this node's openings: the label is wrong
        w.challenges[0].challenge = w.challenges[0].challenge % 63 + 1;
        EXPECT_FALSE(f.synthesize(w).is_satisfied());
    }
    {
        auto w = f.witness;
        w.comm_r += fr_t::one();
        EXPECT_FALSE(f.synthesize(w).is_satisfied());
    }
}

TEST(StackedCircuitWitness, WrongSeedGivesOtherPublicInputs) {
    std::mt19937_64 rng(2026);
    fixture f(rng);
    auto other = f.pub;
    other.seed[0] ^= 1;
    auto a = porep::generate_public_inputs(f.proof, f.graph, f.pub, 0);
    auto b = porep::generate_public_inputs(f.proof, f.graph, other, 0);
    EXPECT_NE(a, b);
}

TEST(StackedCircuitWitness, CompoundTreeShape842) {
    // rust-fil-proofs' 8-4-2 test shape: 64 nodes, 2 layers, 1 challenge.
    std::mt19937_64 rng(2027);
    graph::stacked_graph g(64, graph::porep_id_of(5), graph::api_version::v1_1);
    std::vector<fr_t> data(64);
    for (fr_t& d : data) d = fr_t::random(rng);
    porep::sealed_sector s = porep::seal_sector(g, 2, porep::tree_shape{8, 4, 2}, fr_t::random(rng), data);
    porep::stacked_circuit_shape shape;
    shape.layers = 2;
    shape.challenges = 1;
    shape.tree_d_levels = 6;
    shape.tree_c = {8, 1, 4, 2};
    uint64_t challenge = 45;
    auto w = porep::make_partition_witness(s, g, std::span<const uint64_t>(&challenge, 1));
    cs::checking_cs sys;
    porep::synthesize_stacked_partition(sys, shape, &w);
    EXPECT_TRUE(sys.is_satisfied()) << *sys.first_failure();
    EXPECT_EQ(sys.num_constraints(), 1'346'982u);
    EXPECT_EQ(sys.num_inputs(), 22u);
}

TEST(StackedCircuitWitness, WitnessOfWrongShapeIsRejected) {
    std::mt19937_64 rng(2028);
    fixture f(rng);
    auto w = f.witness;
    w.challenges.pop_back();
    EXPECT_THROW(f.synthesize(w), std::invalid_argument);
    w = f.witness;
    w.challenges[0].drg_parents[2].rows.pop_back();
    EXPECT_THROW(f.synthesize(w), std::invalid_argument);
}

TEST(StackedCircuitWitness, SyntheticWitnessHasTheShapeButIsNotSatisfied) {
    const auto& proof = porep::registered_proof_by_name("StackedDrg2KiBV1_1");
    const auto shape = porep::stacked_circuit_shape::of(proof);
    auto w = porep::make_synthetic_witness(shape, proof.nodes, 9);
    cs::checking_cs sys;
    porep::synthesize_stacked_partition(sys, shape, &w);
    EXPECT_EQ(sys.num_constraints(), 2'687'921u);
    EXPECT_FALSE(sys.is_satisfied());
}

}  // namespace
