// The SnapDeals commands end to end through the cuzk binary: seal-test --update (a 2 KiB update's vanilla proof
// and update.json) -> setup --circuit update:StackedDrgUpdate2KiBV1 (~35 s on two cores, 650 MB) -> prove-update
// (~15 s) -> verify-update: valid; invalid with another comm_d_new, comm_r_old or comm_r_new, or a proof bit
// flipped; and exit code 2 naming the flag, file, partition, challenge or byte for bad input (truncated or
// tampered vanilla proofs, bad hex, wrong counts and lengths, an unknown registered proof, an h the size does not
// allow).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_output.hpp"
#include "support/run_command.hpp"
#include "support/scalar_census_checks.hpp"
#include "support/shared_outputs.hpp"

namespace fs = std::filesystem;

namespace {

using run_result = cuzk::test::command_result;  // stdout and stderr together
run_result run(const std::string& args) { return cuzk::test::run_cuzk(args); }

using cuzk::test::output_contains;

constexpr const char* NAME = "StackedDrgUpdate2KiBV1";

// The public values given on the command line; empty: update.json's.
struct commitments {
    std::string r_old, d_new, r_new;
};

class UpdateRoundTrip : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("cuzk_update_cli_" + std::to_string(getpid()));
        fs::create_directories(dir_);
        // Made once for both tests (each a process of its own under ctest), each test given a copy.
        const auto seal = cuzk::test::cuzk_output_once("seal-test --registered-proof " + std::string(NAME) +
                                                       " --update --seed cli-update");
        const auto setup = cuzk::test::cuzk_output_once("setup --circuit update:" + std::string(NAME));
        seal_ = seal.made;
        setup_ = setup.made;
        cuzk::test::linked_copy(seal.dir, dir_);
        cuzk::test::linked_copy(setup.dir, dir_);
        if (fs::exists(dir_ / "update.json")) {
            std::ifstream in(dir_ / "update.json");
            update_ = nlohmann::json::parse(in);
        }
    }
    static void TearDownTestSuite() { fs::remove_all(dir_); }

    void SetUp() override {
        ASSERT_EQ(seal_.exit_code, 0) << seal_.output;
        ASSERT_EQ(setup_.exit_code, 0) << setup_.output;
        ASSERT_EQ(update_["partition_proofs"].size(), 1u) << update_.dump();
    }

    static std::string vanilla() { return (dir_ / update_["partition_proofs"][0].get<std::string>()).string(); }
    static std::string hex(const char* key) { return update_[key].get<std::string>(); }
    static std::string params() { return (dir_ / ("update_" + std::string(NAME) + ".params")).string(); }
    static std::string vk() { return (dir_ / ("update_" + std::string(NAME) + ".vk")).string(); }

    static std::string flags(const commitments& c) {
        auto value = [](const std::string& given, const char* key) { return given.empty() ? hex(key) : given; };
        return " --comm-r-old " + value(c.r_old, "comm_r_old") + " --comm-d-new " + value(c.d_new, "comm_d_new") +
               " --comm-r-new " + value(c.r_new, "comm_r_new");
    }
    static run_result prove(const std::vector<std::string>& files, const std::string& out, const commitments& c = {},
                            const std::string& extra = "", const std::string& name = NAME) {
        std::string args = "prove-update --registered-proof " + name + flags(c) + " --params " + params() +
                           " --out " + out + extra;
        for (const std::string& f : files) args += " --vanilla " + f;
        return run(args);
    }
    static run_result verify(const std::string& proof, const commitments& c = {}, const std::string& extra = "",
                             const std::string& name = NAME) {
        return run("verify-update --vk " + vk() + " --registered-proof " + name + flags(c) + " --proof " + proof +
                   extra);
    }
    // The proof made once for the tests that need one.
    static std::string proof() {
        const fs::path p = dir_ / "update.proof";
        if (!fs::exists(p)) {
            auto r = prove({vanilla()}, p.string());
            EXPECT_EQ(r.exit_code, 0) << r.output;
        }
        return p.string();
    }

    static inline fs::path dir_;
    static inline run_result seal_, setup_;
    static inline nlohmann::json update_;
};

void flip(const fs::path& from, const fs::path& to, size_t byte, uint8_t mask) {
    std::ifstream in(from, std::ios::binary);
    std::vector<char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    b.at(byte) = char(uint8_t(b[byte]) ^ mask);
    std::ofstream(to, std::ios::binary).write(b.data(), std::streamsize(b.size()));
}

TEST_F(UpdateRoundTrip, ProveThenVerify) {
    const std::string p = proof();
    ASSERT_TRUE(fs::exists(p));
    EXPECT_EQ(fs::file_size(p), 192u);  // one partition at 2 KiB

    auto ok = verify(p);
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_TRUE(output_contains(ok, "valid"));
    EXPECT_EQ(verify(p, {}, " --h 1").exit_code, 0);  // the 2 KiB default, given
    EXPECT_EQ(verify(p, {}, "", "RegisteredUpdateProof_StackedDrg2KiBV1").exit_code, 0);

    commitments other;
    other.d_new = hex("comm_r_new");  // a canonical field element, not comm_d_new
    auto bad = verify(p, other);
    EXPECT_EQ(bad.exit_code, 1) << bad.output;
    EXPECT_TRUE(output_contains(bad, "invalid"));
    other = {};
    other.r_old = hex("comm_d_new");
    EXPECT_EQ(verify(p, other).exit_code, 1);
    other = {};
    other.r_new = hex("comm_r_old");
    EXPECT_EQ(verify(p, other).exit_code, 1);

    // The sign bit of A: another valid point, an invalid proof.
    flip(p, dir_ / "flipped.proof", 0, 0x20);
    auto flipped = verify((dir_ / "flipped.proof").string());
    EXPECT_EQ(flipped.exit_code, 1) << flipped.output;
}

// circuit-info --scalar-census of an update's partition from its vanilla proof and public values (what
// cuzk_bench_gpu --census takes): every aux variable counted once in L, every class count adding up; flags that do
// not go together, or a partition the update does not have, are input errors naming them.
TEST_F(UpdateRoundTrip, ScalarCensusOfAPartition) {
    auto r = run("circuit-info --registered-proof " + std::string(NAME) + " --scalar-census" + flags({}) +
                 " --vanilla " + vanilla());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = cuzk::test::json_of_output(r.output);
    cuzk::test::expect_census_covers_the_partition(j);

    auto bad = run("circuit-info --registered-proof " + std::string(NAME) + " --scalar-census --partition 1" +
                   flags({}) + " --vanilla " + vanilla());
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(output_contains(bad, "--partition 1")) << bad.output;
    bad = run("circuit-info --registered-proof " + std::string(NAME) + " --scalar-census --vanilla " + vanilla());
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(output_contains(bad, "--comm-r-old")) << bad.output;
    bad = run("circuit-info --registered-proof " + std::string(NAME) + flags({}) + " --vanilla " + vanilla());
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(output_contains(bad, "--scalar-census")) << bad.output;
    bad = run("circuit-info --registered-proof StackedDrgWindow2KiBV1_1" + flags({}));
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(output_contains(bad, "SnapDeals")) << bad.output;
}

TEST_F(UpdateRoundTrip, BadInputExitsTwoNamingWhatAndWhere) {
    const std::string out = (dir_ / "bad.proof").string();
    const std::string v = vanilla();

    // Truncated: the decoder names the file, the partition, the challenge and the byte offset.
    {
        std::ifstream in(v, std::ios::binary);
        std::vector<char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(dir_ / "truncated.bin", std::ios::binary).write(b.data(), std::streamsize(b.size() - 40));
        auto r = prove({(dir_ / "truncated.bin").string()}, out);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        for (const char* part : {"truncated.bin", "partition 0", "challenge 9", "byte"})
            EXPECT_TRUE(output_contains(r, part)) << part << " in: " << r.output;
        EXPECT_FALSE(fs::exists(out));
    }
    // A sibling of challenge 0's tree R old opening changed (byte 400: inside its first sibling, still a field
    // element): it decodes, but does not verify natively.
    {
        flip(v, dir_ / "tampered.bin", 400, 0x01);
        auto r = prove({(dir_ / "tampered.bin").string()}, out);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        for (const char* part : {"tampered.bin", "partition 0", "challenge 0"})
            EXPECT_TRUE(output_contains(r, part)) << part << " in: " << r.output;
        EXPECT_FALSE(fs::exists(out));
    }
    // Public values the vanilla proof does not prove: refused before proving, naming what differs.
    {
        commitments other;
        other.d_new = hex("comm_r_new");
        auto r = prove({v}, out, other);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "comm_d_new")) << r.output;
        other = {};
        other.r_old = hex("comm_r_new");
        r = prove({v}, out, other);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "comm_r_old")) << r.output;
    }
    // Bad hex: not 32 bytes, not hex, not a field element.
    {
        commitments c;
        c.r_old = "abcd";
        auto r = prove({v}, out, c);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--comm-r-old: expected 64 hex digits")) << r.output;
        c = {};
        c.d_new = "zz" + hex("comm_d_new").substr(2);
        r = prove({v}, out, c);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--comm-d-new: 'zz'")) << r.output;
        c = {};
        c.r_new = std::string(64, 'f');
        r = verify(proof(), c);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--comm-r-new: not a field element")) << r.output;
        c = {};
        c.d_new = "0x12";
        r = verify(proof(), c);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--comm-d-new")) << r.output;
    }
    // Counts, lengths, names, h.
    {
        auto r = prove({v, v}, out);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "2 files")) << r.output;
        r = verify(v);  // a vanilla proof is no 192-byte proof
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "partition proof(s) of 192 bytes = 192")) << r.output;
        std::ifstream in(proof(), std::ios::binary);
        std::vector<char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(dir_ / "short.proof", std::ios::binary).write(b.data(), 191);
        r = verify((dir_ / "short.proof").string());
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "short.proof: 191 bytes")) << r.output;
        r = verify(proof(), {}, "", "StackedDrgUpdate4KiBV1");
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "StackedDrgUpdate32GiBV1")) << r.output;
        r = prove({v}, out, {}, "", "StackedDrg2KiBV1_1");  // a PoRep name
        EXPECT_EQ(r.exit_code, 2) << r.output;
        r = verify(proof(), {}, " --h 10");
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--h: 10 is not allowed")) << r.output;
        r = prove({v}, out, {}, " --h x");
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--h: 'x'")) << r.output;
    }
}

}  // namespace
