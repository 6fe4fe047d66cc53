// The PoRep commands end to end through the cuzk binary: circuit-info's published sizes (and its scalar
// census of a real 2 KiB witness), the 2 KiB round trip seal-test -> setup -> prove-c2 -> verify-seal
// (valid, then invalid with another seed or comm_r), and exit code 2 with the flag or file named for bad input. The round trip takes
// about two minutes on two cores (setup of a 2^22 domain, then one proof).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include "support/cli_output.hpp"
#include "support/run_command.hpp"
#include "support/scalar_census_checks.hpp"
#include "support/shared_outputs.hpp"

namespace fs = std::filesystem;

namespace {

using run_result = cuzk::test::command_result;  // stdout and stderr together
run_result run(const std::string& args) { return cuzk::test::run_cuzk(args); }

using cuzk::test::json_of_output;

TEST(PorepCli, CircuitInfoPrintsPublishedSizes) {
    auto r = run("circuit-info --registered-proof StackedDrg32GiBV1_1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto j = json_of_output(r.output);
    EXPECT_EQ(j["constraints"], 130278541u);
    EXPECT_EQ(j["constraints_with_input_rows"], 130278869u);
    EXPECT_EQ(j["inputs"], 328u);
    EXPECT_EQ(j["partitions"], 10u);
    EXPECT_EQ(j["r1cs_matrices"]["non_zeros"], 756185813u);
    EXPECT_EQ(j["r1cs_matrices"]["distinct_coefficients"], 2255u);
    auto small = json_of_output(run("circuit-info --registered-proof StackedDrg2KiBV1").output);
    EXPECT_EQ(small["constraints"], 2687921u);
    EXPECT_EQ(small["inputs"], 40u);
    EXPECT_EQ(small["r1cs_matrices"]["non_zeros"], 15630605u);  // the recording's (test_r1cs_matrices)
    EXPECT_EQ(small["r1cs_matrices"]["file_bytes"], 159007400u);
    auto bad = run("circuit-info --registered-proof StackedDrg4KiBV1_1");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.output.find("StackedDrg32GiBV1_1"), std::string::npos) << bad.output;
}

class PorepRoundTrip : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("cuzk_porep_cli_" + std::to_string(getpid()));
        fs::create_directories(dir_);
        // Made once for all the tests (each a process of its own under ctest), each test given a copy.
        const auto seal = cuzk::test::cuzk_output_once("seal-test --registered-proof StackedDrg2KiBV1_1 --rng roundtrip");
        const auto setup = cuzk::test::cuzk_output_once("setup --circuit porep:StackedDrg2KiBV1_1");
        seal_ = seal.made;
        setup_ = setup.made;
        cuzk::test::linked_copy(seal.dir, dir_);
        cuzk::test::linked_copy(setup.dir, dir_);
    }
    static void TearDownTestSuite() { fs::remove_all(dir_); }

    static std::string verify_args(const nlohmann::json& s) {
        return "verify-seal --vk " + (dir_ / "porep_StackedDrg2KiBV1_1.vk").string() +
               " --registered-proof StackedDrg2KiBV1_1 --sector-id " + std::to_string(s["sector_id"].get<uint64_t>()) +
               " --prover-id " + s["prover_id"].get<std::string>() + " --ticket " + s["ticket"].get<std::string>() +
               " --seed " + s["seed"].get<std::string>() + " --comm-r " + s["comm_r"].get<std::string>() +
               " --comm-d " + s["comm_d"].get<std::string>();
    }

    static inline fs::path dir_;
    static inline run_result seal_, setup_;
};

TEST_F(PorepRoundTrip, SealProveVerify) {
    ASSERT_EQ(seal_.exit_code, 0) << seal_.output;
    ASSERT_EQ(setup_.exit_code, 0) << setup_.output;
    auto prove = run("prove-c2 --c1 " + (dir_ / "c1.json").string() + " --params " +
                     (dir_ / "porep_StackedDrg2KiBV1_1.params").string() + " --out " + (dir_ / "proof.bin").string());
    ASSERT_EQ(prove.exit_code, 0) << prove.output;
    EXPECT_EQ(fs::file_size(dir_ / "proof.bin"), 192u);

    std::ifstream in(dir_ / "seal.json");
    nlohmann::json s = nlohmann::json::parse(in);
    const std::string proof = " --proof " + (dir_ / "proof.bin").string();
    auto ok = run(verify_args(s) + proof);
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_NE(ok.output.find("valid"), std::string::npos);

    auto other_seed = s;
    std::string seed = s["seed"];
    seed[0] = seed[0] == '0' ? '1' : '0';
    other_seed["seed"] = seed;
    auto bad = run(verify_args(other_seed) + proof);
    EXPECT_EQ(bad.exit_code, 1) << bad.output;
    EXPECT_NE(bad.output.find("invalid"), std::string::npos);

    auto other_sector = s;
    other_sector["sector_id"] = s["sector_id"].get<uint64_t>() + 1;  // another replica id
    EXPECT_EQ(run(verify_args(other_sector) + proof).exit_code, 1);

    // --seal takes the values from seal-test's seal.json; a flag given beside it wins.
    const std::string vk = " --vk " + (dir_ / "porep_StackedDrg2KiBV1_1.vk").string();
    const std::string seal = " --seal " + (dir_ / "seal.json").string();
    auto from_file = run("verify-seal" + vk + seal + proof);
    EXPECT_EQ(from_file.exit_code, 0) << from_file.output;
    EXPECT_NE(from_file.output.find("valid"), std::string::npos);
    EXPECT_EQ(run("verify-seal" + vk + seal + " --seed " + seed + proof).exit_code, 1);
    EXPECT_EQ(run("verify-seal" + vk + seal + " --sector-id 9" + proof).exit_code, 1);
    auto missing = run("verify-seal" + vk + proof);
    EXPECT_EQ(missing.exit_code, 2) << missing.output;
    EXPECT_NE(missing.output.find("--registered-proof is required (or --seal FILE holding it)"), std::string::npos)
        << missing.output;
}

// --porep-id and --api-version: the registered proof's own values, given explicitly, verify; another porep id
// (another replica id and graph) or the 1.0.0 graph of the V1_1 seal does not; bad values are input errors.
TEST_F(PorepRoundTrip, PorepIdAndApiVersionFlags) {
    ASSERT_EQ(seal_.exit_code, 0) << seal_.output;
    ASSERT_EQ(setup_.exit_code, 0) << setup_.output;
    std::ifstream in(dir_ / "seal.json");
    const std::string args = verify_args(nlohmann::json::parse(in)) + " --proof " + (dir_ / "proof.bin").string();
    if (!fs::exists(dir_ / "proof.bin")) {
        auto prove = run("prove-c2 --c1 " + (dir_ / "c1.json").string() + " --params " +
                         (dir_ / "porep_StackedDrg2KiBV1_1.params").string() + " --out " + (dir_ / "proof.bin").string());
        ASSERT_EQ(prove.exit_code, 0) << prove.output;
    }
    // StackedDrg2KiBV1_1 is registered proof 5: its porep id is 5 as u64 LE, nonce 0.
    const std::string own = "0500000000000000" + std::string(48, '0');
    EXPECT_EQ(run(args + " --porep-id " + own + " --api-version 1.1.0").exit_code, 0);
    // 1.2.0 builds the same graph as 1.1.0.
    EXPECT_EQ(run(args + " --api-version 1.2.0").exit_code, 0);
    EXPECT_EQ(run(args + " --porep-id 0600000000000000" + std::string(48, '0')).exit_code, 1);
    EXPECT_EQ(run(args + " --porep-id " + own.substr(0, 16) + "01" + std::string(46, '0')).exit_code, 1);  // nonce 1
    EXPECT_EQ(run(args + " --api-version 1.0.0").exit_code, 1);
    auto bad = run(args + " --api-version 1.1");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.output.find("--api-version: '1.1'"), std::string::npos) << bad.output;
    bad = run(args + " --porep-id 05");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.output.find("--porep-id"), std::string::npos) << bad.output;
}

TEST_F(PorepRoundTrip, BadInputExitsTwoNamingTheFlag) {
    ASSERT_EQ(seal_.exit_code, 0) << seal_.output;
    ASSERT_EQ(setup_.exit_code, 0) << setup_.output;
    std::ifstream in(dir_ / "seal.json");
    nlohmann::json s = nlohmann::json::parse(in);
    auto short_ticket = s;
    short_ticket["ticket"] = "abcd";
    auto r = run(verify_args(short_ticket) + " --proof " + (dir_ / "seal.json").string());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("--ticket"), std::string::npos) << r.output;

    auto big_comm = s;
    big_comm["comm_r"] = std::string(64, 'f');  // >= r as a little-endian value
    r = run(verify_args(big_comm) + " --proof " + (dir_ / "seal.json").string());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("--comm-r"), std::string::npos) << r.output;

    r = run(verify_args(s) + " --proof " + (dir_ / "seal.json").string());  // not 192 bytes
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("192"), std::string::npos) << r.output;

    // A C1 whose registered proof does not match the parameters: exit 2, sizes named.
    r = run("seal-test --registered-proof StackedDrg2KiBV1 --rng other --out " + (dir_ / "v1").string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run("prove-c2 --c1 " + (dir_ / "v1" / "c1.json").string() + " --params " + (dir_ / "c1.json").string() +
            " --out " + (dir_ / "x.bin").string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
}

// circuit-info --scalar-census on a sealed 2 KiB C1: the census covers the variables the counting synthesis
// reports (L: every aux variable; A: every input and most aux variables, not all: 10,765 of 2,685,673 are in
// no A row at 2 KiB; B: a part), each class count adds up, and a PoRep witness is mostly bits. Bad flags are
// input errors naming them.
TEST_F(PorepRoundTrip, ScalarCensusCountsEveryVariableOfThePartition) {
    ASSERT_EQ(seal_.exit_code, 0) << seal_.output;
    const std::string c1 = (dir_ / "c1.json").string();
    auto r = run("circuit-info --c1 " + c1 + " --scalar-census");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = json_of_output(r.output);
    EXPECT_TRUE(j["c1_partition0_satisfied"].get<bool>());
    cuzk::test::expect_census_covers_the_partition(j);
    const auto& c = j["scalar_census"];
    const uint64_t aux = j["aux"], inputs = j["inputs"];
    EXPECT_GT(c["a"]["scalars"].get<uint64_t>(), inputs + aux / 2);
    // SHA256 and the bit decompositions: most aux values are 0 or 1.
    EXPECT_GT(c["l"]["zero"].get<uint64_t>() + c["l"]["one"].get<uint64_t>(), aux / 2) << c.dump();
    // A's and B's aux scalars are some of L's, beside at most all the inputs.
    for (const char* q : {"a", "b"})
        for (const char* k : {"zero", "one", "small", "other"})
            EXPECT_LE(c[q][k].get<uint64_t>(), c["l"][k].get<uint64_t>() + inputs) << q << " " << k;

    auto bad = run("circuit-info --c1 " + c1 + " --scalar-census --partition 1");
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find("--partition 1"), std::string::npos) << bad.output;
    bad = run("circuit-info --registered-proof StackedDrg2KiBV1_1 --scalar-census");
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_NE(bad.output.find("--scalar-census needs --c1"), std::string::npos) << bad.output;
}

// One label of the C1 flipped (a row of the challenged node's column): prove-c2 refuses the C1 with
// an error naming the JSON path, before any proving, and writes no proof.
TEST_F(PorepRoundTrip, FlippedLabelIsRefusedWithItsJsonPath) {
    ASSERT_EQ(seal_.exit_code, 0) << seal_.output;
    ASSERT_EQ(setup_.exit_code, 0) << setup_.output;
    std::ifstream in(dir_ / "c1.json");
    nlohmann::json c1 = nlohmann::json::parse(in);
    auto& row = c1["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["replica_column_proofs"]["c_x"]["column"]["rows"][1];
    row[0] = row[0].get<int>() ^ 1;
    {
        std::ofstream(dir_ / "flipped.json") << c1.dump();
    }
    auto r = run("prove-c2 --c1 " + (dir_ / "flipped.json").string() + " --params " +
                 (dir_ / "porep_StackedDrg2KiBV1_1.params").string() + " --out " + (dir_ / "flipped.bin").string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("$.vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x: the column's hash"),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "flipped.bin"));
}

}  // namespace
