// The fallback PoSt circuit's size against rust-fil-proofs: the small shapes of
// storage-proofs-post/tests/fallback_circuit.rs (64 leaves per base tree, 5 challenges), the published 32 GiB
// WinningPoSt count, and the 32 / 64 GiB WindowPoSt counts from one slot's cost (a slot's constraints do not
// depend on its witness; the whole 125 M-constraint synthesis is counted by `cuzk circuit-info` in
// test_post_cli). Also the registered PoSt proofs, their published parameter names and the challenge formula.
#include <gtest/gtest.h>

#include <tuple>

#include "common/cs/counting_cs.hpp"
#include "common/post/challenges.hpp"
#include "common/post/fallback_circuit.hpp"
#include "common/post/official_params.hpp"
#include "common/util/errors.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::post;

struct counts {
    uint64_t constraints, inputs, aux;
};

counts count(const fallback_circuit_shape& shape) {
    cs::counting_cs c;
    synthesize_fallback_post(c, shape, nullptr);
    return {c.num_constraints(), c.num_inputs(), c.num_aux()};
}

// fallback_circuit.rs: trees of 64 leaves per base tree (two levels of 8), |sub| and |top| base trees above.
fallback_circuit_shape small_shape(unsigned sectors, unsigned sub, unsigned top) {
    return {sectors, 5, gadgets::merkle_arities{8, 2, sub, top}};
}

TEST(PostCircuitCount, FallbackCircuitTestShapes) {
    const counts base8 = count(small_shape(3, 0, 0));
    EXPECT_EQ(base8.constraints, 16869u);
    EXPECT_EQ(base8.inputs, 19u);
    EXPECT_EQ(count(small_shape(3, 4, 0)).constraints, 22674u);
    EXPECT_EQ(count(small_shape(3, 4, 2)).constraints, 27384u);
    const counts two = count(small_shape(2, 0, 0));
    EXPECT_EQ(two.constraints, 11246u);
    EXPECT_EQ(two.inputs, 13u);
}

TEST(PostCircuitCount, Winning32GiBPublished) {
    const auto& proof = registered_post_proof_by_name("StackedDrgWinning32GiBV1");
    const counts c = count(fallback_circuit_shape::of(proof));
    EXPECT_EQ(c.constraints, 370590u);
    EXPECT_EQ(c.inputs, 133u);
    EXPECT_EQ(proof.public_inputs_per_partition() + 1, 133u);
    // Derived (not published): 66 x (313 + 5,616).
    EXPECT_EQ(count(fallback_circuit_shape::of(registered_post_proof_by_name("StackedDrgWinning64GiBV1"))).constraints,
              391314u);
}

// A partition's size is its slots times one slot's: synthesis adds nothing outside the slots.
TEST(PostCircuitCount, WindowFromOneSlot) {
    for (auto [name, constraints, inputs] : {std::tuple{"StackedDrgWindow32GiBV1_1", 125279217ull, 25840ull},
                                             std::tuple{"StackedDrgWindow32GiBV1", 125279217ull, 25840ull},
                                             std::tuple{"StackedDrgWindow64GiBV1_1", 129887900ull, 25301ull}}) {
        const auto& proof = registered_post_proof_by_name(name);
        fallback_circuit_shape shape = fallback_circuit_shape::of(proof);
        const uint64_t slots = shape.sectors;
        EXPECT_EQ(slots, proof.sector_count) << name;
        shape.sectors = 1;
        const counts one = count(shape);
        shape.sectors = 3;
        const counts three = count(shape);
        EXPECT_EQ(three.constraints, 3 * one.constraints) << name;
        EXPECT_EQ(three.aux, 3 * one.aux) << name;
        EXPECT_EQ(one.constraints * slots, constraints) << name;
        EXPECT_EQ((one.inputs - 1) * slots + 1, inputs) << name;
        EXPECT_EQ(proof.public_inputs_per_partition() + 1, inputs) << name;
    }
}

TEST(PostCircuitCount, SlotCostsMatchTheGadgets) {
    // 313 per slot; per challenge 10 levels x (3 bits + 22 insertion + 505 Poseidon-8) + pack + equality.
    fallback_circuit_shape shape = fallback_circuit_shape::of(registered_post_proof_by_name("StackedDrgWindow32GiBV1_1"));
    shape.sectors = 1;
    shape.challenges = 0;
    EXPECT_EQ(count(shape).constraints, 313u);
    shape.challenges = 1;
    EXPECT_EQ(count(shape).constraints, 313u + 5302u);
    shape.tree_r.top = 2;
    EXPECT_EQ(count(shape).constraints, 313u + 5616u);
}

TEST(PostCircuitCount, OfficialParameterNames) {
    const auto& w32 = registered_post_proof_by_name("StackedDrgWindow32GiBV1_1");
    EXPECT_EQ(parameter_identifier(w32),
              "FallbackPoSt::PublicParams{sector_size: 34359738368, challenge_count: 10, sector_count: 2349}");
    EXPECT_EQ(official_params_stem(w32), "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
                                         "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc");
    // Window V1 and V1_1 share the parameters: the identifier has no API version.
    EXPECT_EQ(official_params_stem(registered_post_proof_by_name("StackedDrgWindow32GiBV1")), official_params_stem(w32));
    EXPECT_EQ(official_params_stem(registered_post_proof_by_name("StackedDrgWinning32GiBV1")),
              "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
              "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e");
    EXPECT_EQ(official_params_stem(registered_post_proof_by_name("StackedDrgWindow64GiBV1_1")),
              "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
              "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def");
    EXPECT_EQ(official_params_stem(registered_post_proof_by_name("StackedDrgWinning64GiBV1")),
              "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
              "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c");
    EXPECT_EQ(official_params_stem(registered_post_proof_by_name("StackedDrgWindow2KiBV1_1")),
              "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
              "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0");
}

TEST(PostCircuitCount, RegisteredProofTable) {
    EXPECT_EQ(all_registered_post_proofs().size(), 15u);
    for (uint64_t id = 0; id < 15; ++id) EXPECT_EQ(registered_post_proof_by_id(id).id, id);
    const auto& w = registered_post_proof_by_id(13);
    EXPECT_EQ(w.name, "StackedDrgWindow32GiBV1_1");
    EXPECT_EQ(w.version, graph::api_version::v1_2);
    EXPECT_EQ(w.base_tree_height(), 9u);
    EXPECT_EQ(&registered_post_proof_by_name("StackedDrgWindow32GiBV1_2"), &w);  // the proofs-api name
    const auto& win = registered_post_proof_by_id(4);
    EXPECT_EQ(win.name, "StackedDrgWinning64GiBV1");
    EXPECT_EQ(win.circuit_sectors(), 66u);
    EXPECT_EQ(win.circuit_challenges(), 1u);
    EXPECT_EQ(fallback_circuit_shape::of(win).tree_r.levels(), 11u);
    EXPECT_EQ(registered_post_proof_by_id(5).version, graph::api_version::v1_0);
    EXPECT_EQ(registered_post_proof_by_name("StackedDrgWindow2KiBV1_1").sector_count, 2u);
    EXPECT_EQ(registered_post_proof_by_name("StackedDrgWindow512MiBV1").base_tree_height(), 8u);
    EXPECT_EQ(find_registered_post_proof("StackedDrg32GiBV1_1"), nullptr);
    EXPECT_THROW(registered_post_proof_by_id(15), input_error);
    EXPECT_THROW(registered_post_proof_by_name("StackedDrgWindow4KiBV1"), input_error);
}

// generate_leaf_challenge_inner for fixed inputs, computed independently with Python's hashlib:
// int.from_bytes(sha256(bytes(range(32)) + (7).to_bytes(8,'little') + (n).to_bytes(8,'little')).digest()[:8], 'little').
TEST(PostChallenges, LeafChallengeFormula) {
    bytes32 r{};
    for (size_t i = 0; i < 32; ++i) r[i] = uint8_t(i);
    EXPECT_EQ(leaf_challenge(r, 7, 0, uint64_t(1) << 30), 14687063179172005793ull % (uint64_t(1) << 30));
    EXPECT_EQ(leaf_challenge(r, 7, 3, 64), 13986178702585119349ull % 64);
    EXPECT_EQ(challenge_index(graph::api_version::v1_2, 5, 10, 3), 3u);
    EXPECT_EQ(challenge_index(graph::api_version::v1_0, 5, 10, 3), 53u);
    EXPECT_EQ(challenge_index(graph::api_version::v1_1, 5, 10, 3), 53u);
}

}  // namespace
