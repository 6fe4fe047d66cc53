// `cuzk circuit-info` for the SnapDeals proofs through the cuzk binary: the published 32 GiB size (81 M
// constraints counted blank, ~1.5 s), the derived 64 GiB size, the published parameter stems, and exit code 2
// naming the valid update proofs for an unknown one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_output.hpp"
#include "support/run_command.hpp"

namespace {

using cuzk::test::json_of_output;
using cuzk::test::output_contains;

TEST(UpdateCli, CircuitInfoPrintsPublishedSizes) {
    auto r = cuzk::test::run_cuzk("circuit-info --registered-proof StackedDrgUpdate32GiBV1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto j = json_of_output(r.output);
    EXPECT_EQ(j["constraints"], 81049499u);
    EXPECT_EQ(j["inputs"], 5u);
    EXPECT_EQ(j["constraints_with_input_rows"], 81049504u);
    EXPECT_EQ(j["domain_size"], 1u << 27);
    EXPECT_EQ(j["id"], 3u);
    EXPECT_EQ(j["partitions"], 16u);
    EXPECT_EQ(j["k_and_h_select_partition_0"], 128u);
    EXPECT_EQ(j["official_params"], "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
                                    "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18");

    // Go's constant name of the 64 GiB proof; its size is derived, not published.
    auto j64 = json_of_output(
        cuzk::test::run_cuzk("circuit-info --registered-proof RegisteredUpdateProof_StackedDrg64GiBV1").output);
    EXPECT_EQ(j64["registered_proof"], "StackedDrgUpdate64GiBV1");
    EXPECT_EQ(j64["constraints"], 85006101u);
    EXPECT_EQ(j64["official_params"], "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
                                      "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7");

    auto bad = cuzk::test::run_cuzk("circuit-info --registered-proof StackedDrgUpdate4KiBV1");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_TRUE(output_contains(bad, "StackedDrgUpdate32GiBV1")) << bad.output;
}

}  // namespace
