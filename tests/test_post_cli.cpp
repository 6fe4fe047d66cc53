// The PoSt commands end to end through the cuzk binary: circuit-info's published sizes (the whole 32 and
// 64 GiB WindowPoSt circuits counted, ~15 s each on two cores), the 2 KiB round trips seal-test ->
// setup -> prove-post -> verify-post for WindowPoSt and WinningPoSt (valid; invalid with another randomness,
// comm_r, API version or a proof bit flipped), and exit code 2 naming the flag, file, sector or byte for bad
// input.
#include <gtest/gtest.h>

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

using cuzk::test::json_of_output;
using cuzk::test::output_contains;

TEST(PostCli, CircuitInfoPrintsPublishedSizes) {
    auto r = run("circuit-info --registered-proof StackedDrgWindow32GiBV1_1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    auto j = json_of_output(r.output);
    EXPECT_EQ(j["constraints"], 125279217u);
    EXPECT_EQ(j["inputs"], 25840u);
    EXPECT_EQ(j["constraints_with_input_rows"], 125305057u);
    EXPECT_EQ(j["domain_size"], 1u << 27);
    EXPECT_EQ(j["id"], 13u);
    EXPECT_EQ(j["api_version"], "1.2.0");
    EXPECT_EQ(j["circuit_sector_slots"], 2349u);
    EXPECT_EQ(j["official_params"], "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
                                    "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc");

    auto winning = json_of_output(run("circuit-info --registered-proof StackedDrgWinning32GiBV1").output);
    EXPECT_EQ(winning["constraints"], 370590u);
    EXPECT_EQ(winning["inputs"], 133u);
    EXPECT_EQ(winning["constraints_with_input_rows"], 370723u);
    EXPECT_EQ(winning["domain_size"], 1u << 19);
    EXPECT_EQ(winning["circuit_sector_slots"], 66u);

    auto w64 = json_of_output(run("circuit-info --registered-proof StackedDrgWindow64GiBV1_1").output);
    EXPECT_EQ(w64["constraints"], 129887900u);
    EXPECT_EQ(w64["inputs"], 25301u);

    // The proofs-api name of the same circuit.
    auto v1_2 = json_of_output(run("circuit-info --registered-proof StackedDrgWindow2KiBV1_2").output);
    EXPECT_EQ(v1_2["registered_proof"], "StackedDrgWindow2KiBV1_1");
    auto bad = run("circuit-info --registered-proof StackedDrgWindow4KiBV1_1");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_TRUE(output_contains(bad, "StackedDrgWindow32GiBV1_1")) << bad.output;
}

// Three sealed 2 KiB sectors with their vanilla proofs, and the parameters of both circuits.
class PostRoundTrip : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("cuzk_post_cli_" + std::to_string(getpid()));
        fs::create_directories(dir_);
        // Made once for all the tests (each a process of its own under ctest), each test given a copy.
        const auto seal = cuzk::test::cuzk_output_once(
            "seal-test --registered-proof StackedDrg2KiBV1_1 --rng post --sectors 3 --sector-id 7 "
            "--post-randomness " + randomness);
        const auto window = cuzk::test::cuzk_output_once("setup --circuit post:StackedDrgWindow2KiBV1_1");
        const auto winning = cuzk::test::cuzk_output_once("setup --circuit post:StackedDrgWinning2KiBV1");
        seal_ = seal.made;
        window_setup_ = window.made;
        winning_setup_ = winning.made;
        for (const auto* made : {&seal, &window, &winning}) cuzk::test::linked_copy(made->dir, dir_);
        if (fs::exists(dir_ / "post.json")) {
            std::ifstream in(dir_ / "post.json");
            post_ = nlohmann::json::parse(in);
        }
    }
    static void TearDownTestSuite() { fs::remove_all(dir_); }

    void SetUp() override {
        ASSERT_EQ(seal_.exit_code, 0) << seal_.output;
        ASSERT_EQ(window_setup_.exit_code, 0) << window_setup_.output;
        ASSERT_EQ(winning_setup_.exit_code, 0) << winning_setup_.output;
        ASSERT_EQ(post_["sectors"].size(), 3u) << post_.dump();
    }

    static std::string vanilla(size_t sector, const char* kind) {
        return (dir_ / post_["sectors"][sector][std::string(kind) + "_vanilla"].get<std::string>()).string();
    }
    static std::string sector_arg(size_t sector) {
        return " --sector " + std::to_string(post_["sectors"][sector]["sector_id"].get<uint64_t>()) + ":" +
               post_["sectors"][sector]["comm_r"].get<std::string>();
    }
    static std::string params(const char* name) { return (dir_ / ("post_" + std::string(name) + ".params")).string(); }
    static std::string vk(const char* name) { return (dir_ / ("post_" + std::string(name) + ".vk")).string(); }

    static run_result prove(const char* name, const std::vector<std::string>& files, const std::string& out,
                            const std::string& rand = randomness) {
        std::string args = "prove-post --registered-proof " + std::string(name) + " --randomness " + rand +
                           " --params " + params(name) + " --out " + out + " --vanilla";
        for (const std::string& f : files) args += " " + f;
        return run(args);
    }
    static run_result verify(const char* name, const std::string& sectors, const std::string& proof,
                             const std::string& extra = "", const std::string& rand = randomness) {
        return run("verify-post --vk " + vk(name) + " --registered-proof " + name + " --randomness " + rand +
                   sectors + " --proof " + proof + extra);
    }

    static inline const std::string randomness = "0d2b1ac76d9c8a4b31f6e0a2c1d59f4a7e3b8c6d2f1a0e9b8c7d6e5f4a3b2c11";
    static inline fs::path dir_;
    static inline run_result seal_, window_setup_, winning_setup_;
    static inline nlohmann::json post_;
};

const std::string other_randomness = "1d2b1ac76d9c8a4b31f6e0a2c1d59f4a7e3b8c6d2f1a0e9b8c7d6e5f4a3b2c11";

void flip(const fs::path& from, const fs::path& to, size_t byte, uint8_t mask) {
    std::ifstream in(from, std::ios::binary);
    std::vector<char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    b.at(byte) = char(uint8_t(b[byte]) ^ mask);
    std::ofstream(to, std::ios::binary).write(b.data(), std::streamsize(b.size()));
}

TEST_F(PostRoundTrip, WindowProveVerify) {
    const char* name = "StackedDrgWindow2KiBV1_1";
    const std::string proof = (dir_ / "window.bin").string();
    // Files in descending sector order: prove-post proves them ascending.
    auto r = prove(name, {vanilla(1, "window"), vanilla(0, "window")}, proof);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(fs::file_size(proof), 192u);

    const std::string both = sector_arg(1) + sector_arg(0);  // any order on the command line
    auto ok = verify(name, both, proof);
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_TRUE(output_contains(ok, "valid"));
    EXPECT_EQ(verify(name, both, proof, " --api-version 1.2.0").exit_code, 0);

    auto bad = verify(name, both, proof, "", other_randomness);
    EXPECT_EQ(bad.exit_code, 1) << bad.output;
    EXPECT_TRUE(output_contains(bad, "invalid"));
    // The 1.0.0 rule challenges the second sector's leaves 10..19.
    EXPECT_EQ(verify(name, both, proof, " --api-version 1.0.0").exit_code, 1);
    // Another comm_r (sector 2's) for sector 1.
    std::string swapped = " --sector " + std::to_string(post_["sectors"][0]["sector_id"].get<uint64_t>()) + ":" +
                          post_["sectors"][2]["comm_r"].get<std::string>() + sector_arg(1);
    EXPECT_EQ(verify(name, swapped, proof).exit_code, 1);
    EXPECT_EQ(verify(name, sector_arg(0), proof).exit_code, 1);  // one sector fewer

    // The sign bit of A: another valid point, an invalid proof.
    flip(proof, dir_ / "window-flipped.bin", 0, 0x20);
    auto flipped = verify(name, both, (dir_ / "window-flipped.bin").string());
    EXPECT_EQ(flipped.exit_code, 1) << flipped.output;
    // A byte inside B: no longer a point of the group, refused as an encoding naming the file.
    flip(proof, dir_ / "window-corrupt.bin", 100, 0x5a);
    auto corrupt = verify(name, both, (dir_ / "window-corrupt.bin").string());
    EXPECT_NE(corrupt.exit_code, 0) << corrupt.output;
    if (corrupt.exit_code == 2) {
        EXPECT_TRUE(output_contains(corrupt, "window-corrupt.bin")) << corrupt.output;
    }
}

// circuit-info --scalar-census of a WindowPoSt partition from its vanilla proofs (what cuzk_bench_gpu --census
// takes): every aux variable counted once in L, every class count adding up, and a PoSt witness mostly full field
// elements (Poseidon), unlike PoRep's bits. Flags that do not go together are input errors naming them.
TEST_F(PostRoundTrip, ScalarCensusOfAWindowPartition) {
    const char* name = "StackedDrgWindow2KiBV1_1";
    auto r = run("circuit-info --registered-proof " + std::string(name) + " --scalar-census --randomness " +
                 randomness + " --vanilla " + vanilla(1, "window") + " " + vanilla(0, "window"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = json_of_output(r.output);
    cuzk::test::expect_census_covers_the_partition(j);
    const auto& c = j["scalar_census"];
    const uint64_t aux = j["aux"];
    EXPECT_GT(c["l"]["other"].get<uint64_t>(), aux / 2) << c.dump();

    auto bad = run("circuit-info --registered-proof " + std::string(name) + " --scalar-census --vanilla " +
                   vanilla(0, "window"));
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(output_contains(bad, "--randomness")) << bad.output;
    bad = run("circuit-info --registered-proof " + std::string(name) + " --randomness " + randomness +
              " --vanilla " + vanilla(0, "window"));
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(output_contains(bad, "--scalar-census")) << bad.output;
    bad = run("circuit-info --registered-proof StackedDrg2KiBV1_1 --scalar-census --randomness " + randomness +
              " --vanilla " + vanilla(0, "window"));
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(output_contains(bad, "--vanilla")) << bad.output;
    bad = run("circuit-info --registered-proof " + std::string(name) + " --scalar-census --partition 1 "
              "--randomness " + randomness + " --vanilla " + vanilla(0, "window"));
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(output_contains(bad, "--partition")) << bad.output;
    bad = run("circuit-info --registered-proof " + std::string(name) + " --scalar-census --randomness " +
              randomness + " --vanilla " + vanilla(0, "window") + " " + vanilla(0, "window"));
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
    EXPECT_TRUE(output_contains(bad, "both prove sector")) << bad.output;
}

TEST_F(PostRoundTrip, WindowPartitionOfOneSectorRepeatsIt) {
    const char* name = "StackedDrgWindow2KiBV1_1";
    const std::string proof = (dir_ / "window-one.bin").string();
    auto r = prove(name, {vanilla(2, "window")}, proof);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(verify(name, sector_arg(2), proof).exit_code, 0);
    EXPECT_EQ(verify(name, sector_arg(1), proof).exit_code, 1);
}

// Three sectors of a 2-sector partition: two partition proofs, concatenated, checked partition by partition.
// Under 1.2.0 a sector's challenges do not depend on its position, so prove-post makes the second partition's
// proof from sector 3 alone.
TEST_F(PostRoundTrip, WindowProofOfTwoPartitions) {
    const char* name = "StackedDrgWindow2KiBV1_1";
    const fs::path first = dir_ / "partition0.bin", second = dir_ / "partition1.bin";
    ASSERT_EQ(prove(name, {vanilla(0, "window"), vanilla(1, "window")}, first.string()).exit_code, 0);
    ASSERT_EQ(prove(name, {vanilla(2, "window")}, second.string()).exit_code, 0);
    auto concat = [&](const fs::path& a, const fs::path& b, const fs::path& to) {
        std::ofstream out(to, std::ios::binary);
        out << std::ifstream(a, std::ios::binary).rdbuf() << std::ifstream(b, std::ios::binary).rdbuf();
    };
    concat(first, second, dir_ / "two.bin");
    concat(second, first, dir_ / "swapped.bin");
    const std::string all = sector_arg(2) + sector_arg(0) + sector_arg(1);
    auto ok = verify(name, all, (dir_ / "two.bin").string());
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_EQ(verify(name, all, (dir_ / "swapped.bin").string()).exit_code, 1);
    auto short_file = verify(name, all, first.string());
    EXPECT_EQ(short_file.exit_code, 2) << short_file.output;
    EXPECT_TRUE(output_contains(short_file, "2 partition proof(s) of 192 bytes = 384")) << short_file.output;
}

TEST_F(PostRoundTrip, WinningProveVerify) {
    const char* name = "StackedDrgWinning2KiBV1";
    const std::string proof = (dir_ / "winning.bin").string();
    auto r = prove(name, {vanilla(1, "winning")}, proof);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(fs::file_size(proof), 192u);
    auto ok = verify(name, sector_arg(1), proof);
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_EQ(verify(name, sector_arg(1), proof, "", other_randomness).exit_code, 1);
    EXPECT_EQ(verify(name, sector_arg(0), proof).exit_code, 1);
    // Under 1.2.0 every slot would take challenge 0.
    EXPECT_EQ(verify(name, sector_arg(1), proof, " --api-version 1.2.0").exit_code, 1);
    flip(proof, dir_ / "winning-flipped.bin", 0, 0x20);
    EXPECT_EQ(verify(name, sector_arg(1), (dir_ / "winning-flipped.bin").string()).exit_code, 1);

    auto two = verify(name, sector_arg(0) + sector_arg(1), proof);
    EXPECT_EQ(two.exit_code, 2) << two.output;
    EXPECT_TRUE(output_contains(two, "proves exactly 1")) << two.output;
}

TEST_F(PostRoundTrip, BadInputExitsTwoNamingWhatAndWhere) {
    const char* window = "StackedDrgWindow2KiBV1_1";
    const std::string out = (dir_ / "bad.bin").string();
    const std::string w0 = vanilla(0, "window"), w1 = vanilla(1, "window"), w2 = vanilla(2, "window");

    // Truncated: the decoder names the file and the byte offset.
    {
        std::ifstream in(w0, std::ios::binary);
        std::vector<char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(dir_ / "truncated.vanilla", std::ios::binary).write(b.data(), std::streamsize(b.size() - 40));
        auto r = prove(window, {(dir_ / "truncated.vanilla").string()}, out);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "truncated.vanilla")) << r.output;
        EXPECT_TRUE(output_contains(r, "byte")) << r.output;
    }
    // A sibling hash changed: still decodes, but the vanilla proof does not verify natively; the sector is named.
    {
        flip(w1, dir_ / "corrupt.vanilla", 200, 0x01);
        auto r = prove(window, {(dir_ / "corrupt.vanilla").string()}, out);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "sector " + std::to_string(post_["sectors"][1]["sector_id"].get<uint64_t>())))
            << r.output;
        EXPECT_FALSE(fs::exists(out));
    }
    // A WinningPoSt vanilla proof (66 inclusion proofs) given to WindowPoSt: paths of the wrong count.
    {
        auto r = prove(window, {vanilla(0, "winning")}, out);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "66")) << r.output;
    }
    // Wrong sector counts.
    {
        auto r = prove(window, {w0, w1, w2}, out);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "at most 2")) << r.output;
        r = prove("StackedDrgWinning2KiBV1", {vanilla(0, "winning"), vanilla(1, "winning")}, out);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "exactly 1")) << r.output;
        r = prove(window, {w0, w0}, out);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "both prove sector")) << r.output;
    }
    // Randomness that is not a canonical field element (>= r as a little-endian value).
    {
        const std::string big(64, 'f');
        auto r = prove(window, {w0}, out, big);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--randomness")) << r.output;
        r = verify(window, sector_arg(0), out, "", big);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--randomness: the randomness is not a canonical field element")) << r.output;
    }
    // Another randomness: the vanilla proofs open other leaves than it challenges.
    {
        auto r = prove(window, {w0}, out, other_randomness);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "opens leaf")) << r.output;
    }
    // Unknown registered proof, bad flags.
    {
        auto r = run("prove-post --registered-proof StackedDrgWindow3KiBV1 --randomness " + randomness +
                     " --params x --out " + out + " --vanilla " + w0);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "unknown registered PoSt proof 'StackedDrgWindow3KiBV1'")) << r.output;
        EXPECT_TRUE(output_contains(r, "StackedDrgWindow32GiBV1_1")) << r.output;
        r = verify(window, " --sector seven:" + post_["sectors"][0]["comm_r"].get<std::string>(), w0);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "'seven' is not a sector number")) << r.output;
        r = verify(window, " --sector 7:abcd", w0);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--sector 7:abcd (comm_r)")) << r.output;
        r = verify(window, sector_arg(0) + sector_arg(0), w0);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "given twice")) << r.output;
        r = verify(window, sector_arg(0), w0, " --api-version 1.3.0");
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "--api-version")) << r.output;
    }
    // The Winning key for a Window proof; a proof file of the wrong length.
    {
        auto r = run("verify-post --vk " + vk("StackedDrgWinning2KiBV1") + " --registered-proof " + window +
                     " --randomness " + randomness + sector_arg(0) + " --proof " + w0);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "IC points")) << r.output;
        r = verify(window, sector_arg(0), w0);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "192")) << r.output;
        // Parameters of the other circuit.
        r = run("prove-post --registered-proof " + std::string(window) + " --randomness " + randomness + " --params " +
                params("StackedDrgWinning2KiBV1") + " --out " + out + " --vanilla " + w0);
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_TRUE(output_contains(r, "IC points")) << r.output;
    }
}

}  // namespace
