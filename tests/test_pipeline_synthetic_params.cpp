// The test facility for timing real sizes, through the three daemons (`cuzk up`, CPU backend): a synthetic 2 KiB
// C1 (seal-test --synthetic: its witness does not satisfy the circuit) proved with [gpud] synthetic_params (random
// points of the exact sizes, built in memory) and [assemblerd] verify = false gives a 192-byte proof, not a valid
// one; no .params and no .vk is written or read (the params directory holds only the recorded matrices); gpud says
// so in its log and its status.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/run_command.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class PipelineSyntheticParams : public ::testing::Test {
protected:
    void SetUp() override {
        tag_ = std::to_string(::getpid());
        dir_ = fs::temp_directory_path() / ("cuzk-ps-" + tag_);
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        std::ofstream(dir_ / "cuzk.toml") << fmt::format(R"([runtime]
dir = "{0}/rt"
spool_dir = "{0}/spool"
[metrics]
listen = ""
[ring]
name = "cuzk-test-ring-ps-{1}"
slots = 2
slot_bytes = 16777216
[assemblerd]
verify = false
partition_timeout_s = 1800
[synthd]
threads = 1
[gpud]
backend = "cpu"
workers = 1
lock_name = "cuzk-test-lock-ps-{1}"
params_dir = "{0}/params"
synthetic_params = true
)",
                                                         dir_.string(), tag_);
        cfg_ = "--config " + (dir_ / "cuzk.toml").string();
    }
    void TearDown() override {
        (void)cuzk::test::run_cuzk("down " + cfg_);
        if (HasFailure()) {
            for (const auto* stage : {"assemblerd", "synthd", "gpud"}) {
                const auto t = read_text(dir_ / "rt" / "logs" / (std::string(stage) + ".log"));
                std::fprintf(stderr, "---- %s.log (last 4000 bytes) ----\n%s\n", stage,
                             t.substr(t.size() > 4000 ? t.size() - 4000 : 0).c_str());
            }
        }
        fs::remove_all(dir_);
    }
    std::string tag_, cfg_;
    fs::path dir_;
};

}  // namespace

TEST_F(PipelineSyntheticParams, ASyntheticC1IsProvedWithSyntheticParametersAndNoKeyFile) {
    auto c1 = cuzk::test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --synthetic --out " +
                                   (dir_ / "c1").string());
    ASSERT_EQ(c1.exit_code, 0) << c1.output;
    auto up = cuzk::test::run_cuzk("up " + cfg_);
    ASSERT_EQ(up.exit_code, 0) << up.output;

    const auto proof = dir_ / "proof.bin";
    auto prove = cuzk::test::run_cuzk("prove " + cfg_ + " --c1 " + (dir_ / "c1" / "c1.json").string() + " --out " +
                                      proof.string());
    ASSERT_EQ(prove.exit_code, 0) << prove.output;
    EXPECT_EQ(fs::file_size(proof), 192u);

    auto status = cuzk::test::run_cuzk("status --json " + cfg_);
    ASSERT_EQ(status.exit_code, 0) << status.output;
    const auto j = nlohmann::json::parse(status.output);
    ASSERT_EQ(j["gpud"]["params"].size(), 1u) << status.output;
    EXPECT_EQ(j["gpud"]["params"][0]["synthetic"], true) << status.output;

    for (const auto& e : fs::directory_iterator(dir_ / "params")) {
        const auto ext = e.path().extension();
        EXPECT_TRUE(ext != ".params" && ext != ".vk") << e.path() << " written";
    }
    EXPECT_NE(read_text(dir_ / "rt" / "logs" / "gpud.log").find("SYNTHETIC parameters for porep:StackedDrg2KiBV1_1"),
              std::string::npos);
}
