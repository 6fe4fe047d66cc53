// `cuzk seal-test --update` through the cuzk binary: at 2 KiB the files it writes (update-partition-0.bin,
// update.json) and their content (the proof decodes strictly, verifies, holds the encoding for update.json's
// commitments and h, and is the same process-independent sample as make_sample_update), --synthetic, and
// exit code 2 naming the flag for a bad --h and the flags --update does not take.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/update/sample_update.hpp"
#include "common/update/update_shape.hpp"
#include "common/update/vanilla_bincode.hpp"
#include "common/update/vanilla_encoding.hpp"
#include "common/update/vanilla_verify.hpp"
#include "support/cli_output.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;

namespace {

using namespace cuzk;
using cuzk::test::json_of_output;
using cuzk::test::output_contains;

cuzk::test::command_result run(const std::string& args) { return cuzk::test::run_cuzk(args); }

std::vector<uint8_t> read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json read_json(const fs::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

ff::fr_t fr_of_hex(const std::string& hex) {
    c1::domain_t d{};
    for (size_t i = 0; i < 32; ++i) d[i] = uint8_t(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    ff::fr_t out;
    EXPECT_TRUE(ff::fr_t::from_bytes_le(d.data(), out)) << hex;
    return out;
}

std::string hex_of(const ff::fr_t& x) {
    c1::domain_t d{};
    x.to_bytes_le(d.data());
    return c1::to_hex(d);
}

class UpdateCli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("cuzk_cli_update_" + std::to_string(getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string update(const std::string& extra) const {
        return "seal-test --registered-proof StackedDrgUpdate2KiBV1 --update --out " + dir_.string() + " " + extra;
    }

    fs::path dir_;
};

TEST_F(UpdateCli, WritesThePartitionProofAndUpdateJson) {
    auto r = run(update("--seed cli-test"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_TRUE(fs::exists(dir_ / "update.json"));
    ASSERT_TRUE(fs::exists(dir_ / "update-partition-0.bin"));
    EXPECT_FALSE(fs::exists(dir_ / "update-partition-1.bin"));
    const nlohmann::json j = read_json(dir_ / "update.json");
    EXPECT_EQ(json_of_output(r.output), j);  // printed as written
    EXPECT_EQ(j["registered_proof"], "StackedDrgUpdate2KiBV1");
    EXPECT_EQ(j["registered_proof_id"], 0u);
    EXPECT_EQ(j["abi_name"], "RegisteredUpdateProof_StackedDrg2KiBV1");
    EXPECT_EQ(j["sector_size"], 2048u);
    EXPECT_EQ(j["seed"], "cli-test");
    EXPECT_EQ(j["synthetic"], false);
    EXPECT_FALSE(j.contains("note"));
    EXPECT_EQ(j["h"], 1u);
    EXPECT_EQ(j["partitions"], 1u);
    EXPECT_EQ(j["challenges_per_partition"], 10u);
    EXPECT_EQ(j["partition_proofs"], nlohmann::json::array({"update-partition-0.bin"}));
    for (const char* key : {"comm_r_old", "comm_d_new", "comm_r_new"})
        EXPECT_EQ(j[key].get<std::string>().size(), 64u) << key;

    // The file is one strict bincode PartitionProof of the size the shape fixes, valid for update.json's values.
    const update::registered_update_proof& proof = update::registered_update_proof_by_name("StackedDrgUpdate2KiBV1");
    const update::update_vanilla_shape vshape = update::update_vanilla_shape_of(proof.nodes());
    const std::vector<uint8_t> bytes = read_bytes(dir_ / "update-partition-0.bin");
    EXPECT_EQ(bytes.size(), vshape.partition_proof_bytes());
    EXPECT_EQ(j["partition_proof_bytes"], bytes.size());
    const update::partition_proof p = update::decode_partition_proof(bytes, vshape, 0);
    const update::update_roots roots = update::verify_partition_proof(p, vshape, 0);
    EXPECT_EQ(c1::to_hex(roots.comm_d_new), j["comm_d_new"]);
    const update::update_commitments pub{fr_of_hex(j["comm_r_old"]), fr_of_hex(j["comm_d_new"]),
                                         fr_of_hex(j["comm_r_new"]), j["h"].get<unsigned>()};
    update::check_partition_encoding(p, proof.shape(), 0, pub);

    // The same sample as the library makes from the same seed text, in this process.
    const update::sample_update s = update::make_sample_update(proof.nodes(), "cli-test");
    EXPECT_EQ(j["comm_r_new"], hex_of(s.comm_r_new));
    EXPECT_EQ(p, s.partitions[0]);

    // Without --seed, --rng's text seeds it.
    r = run(update("--rng cli-test"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_json(dir_ / "update.json")["comm_r_new"], j["comm_r_new"]);
}

TEST_F(UpdateCli, Synthetic) {
    auto r = run(update("--synthetic --seed s"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json j = read_json(dir_ / "update.json");
    EXPECT_EQ(j["synthetic"], true);
    EXPECT_NE(j["note"].get<std::string>().find("SYNTHETIC"), std::string::npos);
    EXPECT_TRUE(output_contains(r, "SYNTHETIC")) << r.output;
    EXPECT_TRUE(fs::exists(dir_ / "update-partition-0.bin"));
}

TEST_F(UpdateCli, BadFlagsExitTwoNamingTheFlag) {
    // An h this size does not allow, and not a number.
    auto r = run(update("--h 2"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(output_contains(r, "--h: h = 2 is not allowed")) << r.output;
    EXPECT_TRUE(output_contains(r, "allowed: 1")) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "update.json"));
    r = run(update("--h ten"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(output_contains(r, "--h: 'ten' is not a number")) << r.output;
    // --h without --update.
    r = run("seal-test --registered-proof StackedDrg2KiBV1_1 --h 1 --out " + dir_.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(output_contains(r, "--h: only with --update")) << r.output;
    // A PoRep proof with --update, and a size too large to build whole.
    r = run("seal-test --registered-proof StackedDrg2KiBV1_1 --update --out " + dir_.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(output_contains(r, "StackedDrgUpdate2KiBV1")) << r.output;
    r = run("seal-test --registered-proof StackedDrgUpdate32GiBV1 --update --out " + dir_.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(output_contains(r, "--synthetic")) << r.output;
    // Flags of sealing and PoSt.
    r = run(update("--sectors 2"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(output_contains(r, "--sectors: not taken with --update")) << r.output;
    r = run(update("--ticket " + std::string(64, '0')));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(output_contains(r, "--ticket")) << r.output;
}

}  // namespace
