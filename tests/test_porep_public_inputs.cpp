// Public-input derivations: interactive challenges (range, partition equivalence as
// rust-fil-proofs' challenge_partition_equivalence test, dependence on every input), the replica id
// (fits 254 bits, binds each input) and the input vector's layout per partition.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "common/porep/public_inputs.hpp"
#include "common/porep/registered_proof.hpp"

namespace {

using namespace cuzk;
using ff::fr_t;

porep::bytes32 random_bytes(std::mt19937_64& rng) {
    porep::bytes32 b{};
    for (auto& x : b) x = uint8_t(rng());
    return b;
}

TEST(PorepChallenges, InRangeAndNeverNodeZero) {
    std::mt19937_64 rng(1);
    for (uint64_t nodes : {uint64_t(64), uint64_t(1) << 30}) {
        auto c = porep::derive_challenges(nodes, 200, fr_t::random(rng), random_bytes(rng), 3);
        ASSERT_EQ(c.size(), 200u);
        for (uint64_t x : c) {
            EXPECT_GE(x, 1u);
            EXPECT_LT(x, nodes);
        }
    }
}

TEST(PorepChallenges, PartitionsSplitOneSequence) {
    std::mt19937_64 rng(2);
    fr_t id = fr_t::random(rng);
    auto seed = random_bytes(rng);
    auto all = porep::derive_challenges(uint64_t(1) << 30, 180, id, seed, 0);
    std::vector<uint64_t> joined;
    for (unsigned k = 0; k < 10; ++k) {
        auto part = porep::derive_challenges(uint64_t(1) << 30, 18, id, seed, k);
        joined.insert(joined.end(), part.begin(), part.end());
    }
    EXPECT_EQ(all, joined);
    EXPECT_GT(std::set<uint64_t>(all.begin(), all.end()).size(), 175u);  // 180 draws from 2^30 nodes
}

TEST(PorepChallenges, DependOnSeedAndReplicaId) {
    std::mt19937_64 rng(3);
    fr_t id = fr_t::random(rng);
    auto seed = random_bytes(rng);
    auto base = porep::derive_challenges(uint64_t(1) << 30, 18, id, seed, 0);
    auto seed2 = seed;
    seed2[31] ^= 0x80;
    EXPECT_NE(base, porep::derive_challenges(uint64_t(1) << 30, 18, id, seed2, 0));
    EXPECT_NE(base, porep::derive_challenges(uint64_t(1) << 30, 18, id + fr_t::one(), seed, 0));
    EXPECT_THROW(porep::derive_challenges(2, 1, id, seed, 0), std::invalid_argument);
}

TEST(PorepReplicaId, Fits254BitsAndBindsInputs) {
    std::mt19937_64 rng(4);
    auto prover = random_bytes(rng), ticket = random_bytes(rng), comm_d = random_bytes(rng);
    auto porep_id = porep::registered_proof_by_name("StackedDrg32GiBV1_1").porep_id();
    fr_t id = porep::generate_replica_id(prover, 1234, ticket, comm_d, porep_id);
    uint8_t bytes[32];
    id.to_bytes_le(bytes);
    EXPECT_EQ(bytes[31] & 0xC0, 0);
    EXPECT_NE(id, porep::generate_replica_id(prover, 1235, ticket, comm_d, porep_id));
    EXPECT_NE(id, porep::generate_replica_id(prover, 1234, ticket, comm_d,
                                             porep::registered_proof_by_name("StackedDrg32GiBV1").porep_id()));
}

TEST(PorepPublicInputs, LayoutPerChallenge) {
    std::mt19937_64 rng(5);
    const auto& proof = porep::registered_proof_by_name("StackedDrg32GiBV1_1");
    auto graph = porep::graph_of(proof);
    porep::seal_public_inputs in{fr_t::random(rng), fr_t::random(rng), fr_t::random(rng), random_bytes(rng)};
    auto inputs = porep::generate_public_inputs(proof, graph, in, 9);
    ASSERT_EQ(inputs.size(), 327u);
    EXPECT_EQ(inputs[0], in.replica_id);
    EXPECT_EQ(inputs[1], in.comm_d);
    EXPECT_EQ(inputs[2], in.comm_r);
    auto challenges = porep::derive_challenges(proof.nodes, 18, in.replica_id, in.seed, 9);
    for (size_t i = 0; i < 18; ++i) {
        const fr_t c = fr_t::from_u64(challenges[i]);
        const size_t at = 3 + 18 * i;
        EXPECT_EQ(inputs[at], c);
        EXPECT_EQ(inputs[at + 15], c);
        EXPECT_EQ(inputs[at + 16], c);
        EXPECT_EQ(inputs[at + 17], c);
        std::array<uint32_t, 14> parents{};
        graph.parents(challenges[i], parents);
        for (size_t p = 0; p < 14; ++p) EXPECT_EQ(inputs[at + 1 + p], fr_t::from_u64(parents[p]));
    }
    EXPECT_THROW(porep::generate_public_inputs(proof, graph, in, 10), std::invalid_argument);
}

}  // namespace

namespace {

// Vectors computed outside this code base with Python's hashlib from the specification
// (challenges.rs derive_porep, params.rs generate_replica_id); rust-fil-proofs publishes no
// interactive-challenge vectors, so these pin the byte order and the modular reduction.
TEST(PorepChallenges, IndependentVectors) {
    porep::bytes32 seed;
    seed.fill(1);
    const fr_t id = fr_t::from_u64(55);
    const std::vector<uint64_t> k0 = {578006451, 233767224, 527517844, 659776159, 166998397, 1005772602,
                                      313517184, 146868828, 658857752, 208635709, 862974534, 207784829,
                                      76559640,  881783892, 576624026, 615914946, 412657783, 170718738};
    const std::vector<uint64_t> k3 = {384607964, 257197245, 1005487086, 537909639, 174250658, 628605565,
                                      892056142, 144364546, 747849444,  784537431, 335901949, 778166962,
                                      20897900,  674077955, 641300790,  430642066, 410113454, 324715850};
    EXPECT_EQ(porep::derive_challenges(uint64_t(1) << 30, 18, id, seed, 0), k0);
    EXPECT_EQ(porep::derive_challenges(uint64_t(1) << 30, 18, id, seed, 3), k3);
}

TEST(PorepReplicaId, IndependentVector) {
    porep::bytes32 prover, ticket, comm_d;
    for (size_t i = 0; i < 32; ++i) prover[i] = uint8_t(i);
    ticket.fill(2);
    comm_d.fill(3);
    fr_t id = porep::generate_replica_id(prover, 1234, ticket, comm_d,
                                         porep::registered_proof_by_name("StackedDrg32GiBV1_1").porep_id());
    uint8_t bytes[32];
    id.to_bytes_le(bytes);
    const char* want = "885e1a64b6b60169c41e608700c21e49d826c5265476bdc8f580eb110b26d423";
    char hex[65];
    for (int i = 0; i < 32; ++i) std::snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
    EXPECT_STREQ(hex, want);
}

}  // namespace
