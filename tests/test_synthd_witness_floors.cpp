// synthd's witness floors (synthd/witness_floors.hpp): one blank count per circuit, shared by every proof whose
// parameters are the same published file (PoRep V1, V1_1 and the synthetic variant of a sector size), kept apart for
// different circuits, and a failed count not kept.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "common/util/errors.hpp"
#include "synthd/witness_floors.hpp"

using namespace cuzk;
using namespace cuzk::synthd;

TEST(SynthdWitnessFloors, PoRepVariantsOfOneSectorSizeShareOneCount) {
    witness_floors floors;
    const auto v1 = floors.of("porep:StackedDrg2KiBV1");
    EXPECT_GT(v1, 0u);
    EXPECT_EQ(floors.of("porep:StackedDrg2KiBV1_1"), v1);
    EXPECT_EQ(floors.of("porep:StackedDrg2KiBV1_1_Feat_SyntheticPoRep"), v1);
    EXPECT_EQ(floors.counted(), 1u);

    // The shared count is the one each variant gets counted on its own.
    witness_floors fresh;
    EXPECT_EQ(fresh.of("porep:StackedDrg2KiBV1_1_Feat_SyntheticPoRep"), v1);
    EXPECT_EQ(fresh.counted(), 1u);
}

TEST(SynthdWitnessFloors, DifferentCircuitsAreCountedApart) {
    witness_floors floors;
    const auto porep = floors.of("porep:StackedDrg2KiBV1_1");
    const auto winning = floors.of("post:StackedDrgWinning2KiBV1");
    EXPECT_NE(porep, winning);
    EXPECT_EQ(floors.counted(), 2u);
    EXPECT_NE(witness_floors::circuit_key("porep:StackedDrg2KiBV1_1"),
              witness_floors::circuit_key("post:StackedDrgWinning2KiBV1"));
}

TEST(SynthdWitnessFloors, TestCircuitsAreKnownByShapeNotSeed) {
    witness_floors floors;
    const auto small = floors.of("mul:64@3");
    EXPECT_EQ(floors.of("mul:64@5"), small);
    EXPECT_EQ(floors.counted(), 1u);
    EXPECT_GT(floors.of("mul:128@3"), small);
    EXPECT_EQ(floors.counted(), 2u);
    EXPECT_EQ(witness_floors::circuit_key("mul:64@3"), "mul:64");
}

TEST(SynthdWitnessFloors, PublishedCircuitsAreKnownByTheirParameterFile) {
    const auto key = witness_floors::circuit_key("porep:StackedDrg32GiBV1_1");
    EXPECT_TRUE(key.starts_with("params:v28-stacked-proof-of-replication-")) << key;
    EXPECT_TRUE(key.ends_with(".params")) << key;
    EXPECT_EQ(witness_floors::circuit_key("porep:StackedDrg32GiBV1"), key);
    EXPECT_EQ(witness_floors::circuit_key("porep:StackedDrg32GiBV1_1_Feat_SyntheticPoRep"), key);
    EXPECT_NE(witness_floors::circuit_key("porep:StackedDrg64GiBV1_1"), key);
}

TEST(SynthdWitnessFloors, AnUnknownProofIsRefusedAndNotKept) {
    witness_floors floors;
    EXPECT_THROW(floors.of("porep:StackedDrg3KiBV1"), std::exception);
    EXPECT_THROW(floors.of("nosuch:1"), std::exception);
    EXPECT_EQ(floors.counted(), 0u);
    EXPECT_GT(floors.of("mul:64@3"), 0u);
}
