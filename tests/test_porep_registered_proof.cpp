// The registered-proof table against filecoin-proofs' constants (partitions, layers, challenges,
// tree shapes) and the public-input count |vk.ic| - 1 the published verifying keys have.
#include <gtest/gtest.h>

#include "common/porep/registered_proof.hpp"
#include "common/util/errors.hpp"

namespace {

using namespace cuzk::porep;

TEST(RegisteredProof, ProductionShapes) {
    const auto& p32 = registered_proof_by_name("StackedDrg32GiBV1_1");
    EXPECT_EQ(p32.id, 8u);
    EXPECT_EQ(p32.nodes, uint64_t(1) << 30);
    EXPECT_EQ(p32.layers, 11u);
    EXPECT_EQ(p32.partitions, 10u);
    EXPECT_EQ(p32.challenges_per_partition, 18u);
    EXPECT_EQ(p32.tree_d_height(), 30u);
    EXPECT_EQ(p32.base_tree_height(), 9u);
    EXPECT_EQ(p32.tree_c_path_levels(), 10u);
    EXPECT_EQ(p32.public_inputs_per_partition() + 1, 328u);  // |vk.ic| of the 32 GiB parameters

    const auto& p64 = registered_proof_by_name("StackedDrg64GiBV1");
    EXPECT_EQ(p64.id, 4u);
    EXPECT_EQ(p64.version, cuzk::graph::api_version::v1_0);
    EXPECT_EQ(p64.tree_d_height(), 31u);
    EXPECT_EQ(p64.base_tree_height(), 9u);
    EXPECT_EQ(p64.tree_c_path_levels(), 11u);
}

TEST(RegisteredProof, TestShapes) {
    const auto& p2 = registered_proof_by_name("StackedDrg2KiBV1_1");
    EXPECT_EQ(p2.id, 5u);
    EXPECT_EQ(p2.nodes, 64u);
    EXPECT_EQ(p2.layers, 2u);
    EXPECT_EQ(p2.partitions, 1u);
    EXPECT_EQ(p2.challenges_per_partition, 2u);
    EXPECT_EQ(p2.tree_d_height(), 6u);
    EXPECT_EQ(p2.base_tree_height(), 2u);
    EXPECT_EQ(p2.public_inputs_per_partition() + 1, 40u);  // |vk.ic| of the 2 KiB parameters
    EXPECT_EQ(p2.porep_id()[0], 5);
    EXPECT_EQ(registered_proof_by_name("StackedDrg8MiBV1").base_tree_height(), 6u);
    EXPECT_EQ(registered_proof_by_name("StackedDrg512MiBV1_1").base_tree_height(), 8u);
    EXPECT_EQ(registered_proof_by_id(7).name, "StackedDrg512MiBV1_1");
}

TEST(RegisteredProof, SyntheticPoRepSharesTheCircuitShape) {
    const auto& synth = registered_proof_by_name("StackedDrg32GiBV1_1_Feat_SyntheticPoRep");
    const auto& plain = registered_proof_by_name("StackedDrg32GiBV1_1");
    EXPECT_EQ(synth.id, 13u);
    EXPECT_TRUE(synth.synthetic);
    EXPECT_FALSE(plain.synthetic);
    EXPECT_EQ(synth.public_inputs_per_partition(), plain.public_inputs_per_partition());
    EXPECT_EQ(synth.tree_c_path_levels(), plain.tree_c_path_levels());
    EXPECT_EQ(synth.porep_id()[0], 13);
}

TEST(RegisteredProof, UnknownNameListsValidOnes) {
    try {
        registered_proof_by_name("StackedDrg16GiBV1_1");
        FAIL() << "no error";
    } catch (const cuzk::input_error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("StackedDrg16GiBV1_1"), std::string::npos);
        EXPECT_NE(what.find("StackedDrg32GiBV1_1"), std::string::npos);
        EXPECT_NE(what.find("StackedDrg2KiBV1"), std::string::npos);
    }
    EXPECT_THROW(registered_proof_by_id(15), cuzk::input_error);  // V1_2 NI-PoRep: not supported
    EXPECT_THROW(registered_proof_by_name("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep"), cuzk::input_error);
}

}  // namespace
