// The cuzk command line end to end: setup, prove, verify, the @noble/curves second opinion, and the
// exit code and message for each kind of bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include "support/run_command.hpp"

namespace fs = std::filesystem;

namespace {

using run_result = cuzk::test::command_result;  // stdout and stderr together
run_result run(const std::string& args) { return cuzk::test::run_cuzk(args); }

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void spit(const fs::path& p, const std::string& data) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << data;
}

bool noble_available() {
    return std::system("command -v node >/dev/null 2>&1") == 0 &&
           fs::exists(fs::path(CUZK_SOURCE_DIR) / "tests/oracle/node_modules/@noble/curves");
}

run_result noble_verify(const fs::path& vk, const fs::path& proof, const fs::path& inputs) {
    std::string cmd = "node " + (fs::path(CUZK_SOURCE_DIR) / "tests/oracle/verify_groth16.mjs").string() + " " +
                      vk.string() + " " + proof.string() + " " + inputs.string() + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    run_result r{-1, {}};
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
    int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// One setup and proof shared by the tests of this file (setup is the slow part).
class CliGroth16 : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir = fs::temp_directory_path() / ("cuzk_cli_test_" + std::to_string(getpid()));
        fs::create_directories(dir);
        auto s = run("setup --circuit sha256:1 --out " + dir.string());
        ASSERT_EQ(s.exit_code, 0) << s.output;
        params = dir / "sha256_1.params";
        vk = dir / "sha256_1.vk";
        proof = dir / "proof.bin";
        inputs = dir / "inputs.json";
        auto p = run("prove --circuit sha256:1 --params " + params.string() + " --out " + proof.string() +
                     " --inputs-out " + inputs.string());
        ASSERT_EQ(p.exit_code, 0) << p.output;
    }
    static void TearDownTestSuite() { fs::remove_all(dir); }

    static std::string verify_args(const fs::path& v, const fs::path& pr, const fs::path& in) {
        return "verify --vk " + v.string() + " --proof " + pr.string() + " --inputs " + in.string();
    }

    static inline fs::path dir, params, vk, proof, inputs;
};

}  // namespace

TEST_F(CliGroth16, ProofFromProveVerifies) {
    ASSERT_TRUE(fs::exists(params) && fs::exists(vk));
    EXPECT_EQ(fs::file_size(proof), 192u);
    auto v = run(verify_args(vk, proof, inputs));
    EXPECT_EQ(v.exit_code, 0) << v.output;
    EXPECT_NE(v.output.find("valid"), std::string::npos);
}

TEST_F(CliGroth16, NobleVerifierAcceptsTheProofAndRejectsATamperedOne) {
    // The independent verifier is part of what the suite must show: its absence is a failure.
    ASSERT_TRUE(noble_available()) << "node or tests/oracle/node_modules missing: run ./dev.sh test "
                                      "(or `npm ci` in tests/oracle)";
    auto ok = noble_verify(vk, proof, inputs);
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_NE(ok.output.find("valid"), std::string::npos);
    // Another valid-looking input vector must fail the pairing check.
    std::string in = slurp(inputs);
    auto pos = in.find('"');
    ASSERT_NE(pos, std::string::npos);
    std::string changed = in;
    changed[pos + 1] = changed[pos + 1] == '1' ? '2' : '1';
    spit(dir / "inputs_changed.json", changed);
    auto bad = noble_verify(vk, proof, dir / "inputs_changed.json");
    EXPECT_EQ(bad.exit_code, 1) << bad.output;
}

TEST_F(CliGroth16, ChangedInputIsInvalidWithExitOne) {
    std::string in = slurp(inputs);
    auto pos = in.find('"');
    std::string changed = in;
    changed[pos + 1] = changed[pos + 1] == '1' ? '2' : '1';
    spit(dir / "inputs_changed2.json", changed);
    auto v = run(verify_args(vk, proof, dir / "inputs_changed2.json"));
    EXPECT_EQ(v.exit_code, 1) << v.output;
    EXPECT_NE(v.output.find("invalid"), std::string::npos);
}

TEST_F(CliGroth16, TamperedProofIsInvalidOrRejected) {
    std::string p = slurp(proof);
    // Flip a low bit of A's x coordinate: either the point is off the curve (exit 2, offset named)
    // or it is another point and the proof is invalid (exit 1). Never accepted.
    p[47] = char(p[47] ^ 1);
    spit(dir / "tampered.bin", p);
    auto v = run(verify_args(vk, dir / "tampered.bin", inputs));
    EXPECT_TRUE(v.exit_code == 1 || v.exit_code == 2) << v.output;
    // Swapping in C for A gives well-formed points and an invalid proof.
    std::string q = slurp(proof);
    std::string swapped = q.substr(144, 48) + q.substr(48, 96) + q.substr(0, 48);
    spit(dir / "swapped.bin", swapped);
    auto w = run(verify_args(vk, dir / "swapped.bin", inputs));
    EXPECT_EQ(w.exit_code, 1) << w.output;
}

TEST_F(CliGroth16, WrongVkIsInvalid) {
    fs::path other = dir / "other";
    fs::create_directories(other);
    auto s = run("setup --circuit sha256:1 --out " + other.string());
    ASSERT_EQ(s.exit_code, 0) << s.output;
    auto v = run(verify_args(other / "sha256_1.vk", proof, inputs));
    EXPECT_EQ(v.exit_code, 1) << v.output;
}

TEST_F(CliGroth16, TruncatedFilesAreBadInputNamingFileAndOffset) {
    std::string p = slurp(proof);
    spit(dir / "short.bin", p.substr(0, 100));
    auto v = run(verify_args(vk, dir / "short.bin", inputs));
    EXPECT_EQ(v.exit_code, 2) << v.output;
    EXPECT_NE(v.output.find("short.bin"), std::string::npos) << v.output;

    std::string k = slurp(vk);
    spit(dir / "short.vk", k.substr(0, 700));
    auto w = run(verify_args(dir / "short.vk", proof, inputs));
    EXPECT_EQ(w.exit_code, 2) << w.output;
    EXPECT_NE(w.output.find("short.vk"), std::string::npos) << w.output;
    EXPECT_NE(w.output.find("offset"), std::string::npos) << w.output;

    std::string pa = slurp(params);
    spit(dir / "short.params", pa.substr(0, pa.size() / 2));
    auto x = run("prove --circuit sha256:1 --params " + (dir / "short.params").string() + " --out " +
                 (dir / "p2.bin").string() + " --inputs-out " + (dir / "i2.json").string());
    EXPECT_EQ(x.exit_code, 2) << x.output;
    EXPECT_NE(x.output.find("short.params"), std::string::npos) << x.output;
}

TEST_F(CliGroth16, CorruptedPointInVkIsBadInput) {
    std::string k = slurp(vk);
    k[0] = char(0xff);  // alpha_g1: compression and infinity flags set in an uncompressed point
    spit(dir / "flags.vk", k);
    auto v = run(verify_args(dir / "flags.vk", proof, inputs));
    EXPECT_EQ(v.exit_code, 2) << v.output;
    EXPECT_NE(v.output.find("flags.vk"), std::string::npos) << v.output;
}

TEST_F(CliGroth16, MalformedInputsJsonIsBadInput) {
    spit(dir / "bad.json", "[\"12\", oops]");
    auto v = run(verify_args(vk, proof, dir / "bad.json"));
    EXPECT_EQ(v.exit_code, 2) << v.output;
    EXPECT_NE(v.output.find("bad.json"), std::string::npos) << v.output;
    spit(dir / "count.json", "[\"1\"]");
    auto w = run(verify_args(vk, proof, dir / "count.json"));
    EXPECT_EQ(w.exit_code, 2) << w.output;
}

TEST_F(CliGroth16, CircuitMismatchWithParamsIsBadInput) {
    auto v = run("prove --circuit sha256:2 --params " + params.string() + " --out " + (dir / "x.bin").string() +
                 " --inputs-out " + (dir / "x.json").string());
    EXPECT_EQ(v.exit_code, 2) << v.output;
}

TEST(CliUsage, UnknownCircuitAndMissingFlagsAreUsageErrors) {
    auto a = run("setup --circuit nosuch:3 --out /tmp");
    EXPECT_EQ(a.exit_code, 2) << a.output;
    EXPECT_NE(a.output.find("nosuch:3"), std::string::npos) << a.output;
    auto b = run("verify --vk /nonexistent.vk");
    EXPECT_EQ(b.exit_code, 2) << b.output;
    auto c = run("frobnicate");
    EXPECT_EQ(c.exit_code, 2) << c.output;
    auto d = run("verify --vk /nonexistent.vk --proof /nonexistent.bin --inputs /nonexistent.json");
    EXPECT_EQ(d.exit_code, 2) << d.output;
    EXPECT_NE(d.output.find("/nonexistent"), std::string::npos) << d.output;
}

TEST(CliUsage, CircuitsListsSha256) {
    auto a = run("circuits");
    EXPECT_EQ(a.exit_code, 0) << a.output;
    EXPECT_NE(a.output.find("sha256:"), std::string::npos) << a.output;
}
