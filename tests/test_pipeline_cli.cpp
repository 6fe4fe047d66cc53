// The client commands against real daemons: up starts the three stages, prove/submit/await/status/cancel
// work through them, down stops them; the exit codes say unavailable (3) and bad input (2).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

struct result {
    int code;
    std::string out;
};

// Runs the cuzk binary with |args| against the test pipeline's config; stdout captured, stderr appended.
result cuzk_cli(const pipeline& sut, const std::string& args) {
    (void)sut;
    auto r = cuzk::test::run_cuzk(args);
    return {r.exit_code, r.output};
}

}  // namespace

TEST(PipelineCli, UpProveStatusCancelDown) {
    pipeline sut;
    const std::string cfg = "--config " + (sut.dir() / "cuzk.toml").string();
    // Nothing runs yet: status says unavailable.
    EXPECT_EQ(cuzk_cli(sut, "status " + cfg).code, 3);

    // `cuzk up` finds the daemons beside the build tree's cli/ (or CUZK_BIN_DIR).
    auto up = cuzk_cli(sut, "up " + cfg);
    ASSERT_EQ(up.code, 0) << up.out;
    EXPECT_NE(up.out.find("cuzk-gpud: ready"), std::string::npos) << up.out;

    const auto proof = (sut.dir() / "proof.bin").string();
    auto prove = cuzk_cli(sut, "prove " + cfg + " --circuit mul:128 --partitions 3 --out " + proof);
    ASSERT_EQ(prove.code, 0) << prove.out;
    EXPECT_EQ(std::filesystem::file_size(proof), 3 * ipc::partition_proof_bytes);

    auto submit = cuzk_cli(sut, "submit " + cfg + " --circuit mul:128 --partitions 2 --seed 9");
    ASSERT_EQ(submit.code, 0) << submit.out;
    const std::string id = submit.out.substr(0, submit.out.find('\n'));
    auto await = cuzk_cli(sut, "await " + cfg + " " + id + " --out " + proof);
    ASSERT_EQ(await.code, 0) << await.out;
    EXPECT_EQ(std::filesystem::file_size(proof), 2 * ipc::partition_proof_bytes);

    auto status = cuzk_cli(sut, "status " + cfg);
    ASSERT_EQ(status.code, 0) << status.out;
    const auto j = nlohmann::json::parse(status.out);
    EXPECT_EQ(j["assemblerd"]["jobs"].size(), 2u);
    EXPECT_EQ(j["gpud"]["workers"].size(), 2u);
    EXPECT_GE(j["gpud"]["cuda_lock"]["acquisitions"].get<int>(), 5);
    EXPECT_EQ(j["synthd"]["stage"], "synthd");

    // Cancelling a finished job changes nothing; an unknown job is bad input.
    auto cancel = cuzk_cli(sut, "cancel " + cfg + " " + id);
    EXPECT_EQ(cancel.code, 0) << cancel.out;
    EXPECT_NE(cancel.out.find("done"), std::string::npos) << cancel.out;
    EXPECT_EQ(cuzk_cli(sut, "cancel " + cfg + " 99999").code, 2);
    auto bad = cuzk_cli(sut, "submit " + cfg + " --circuit nope:3 --partitions 2");
    EXPECT_EQ(bad.code, 2) << bad.out;
    EXPECT_NE(bad.out.find("nope:3"), std::string::npos) << bad.out;

    auto bench = cuzk_cli(sut, "bench " + cfg + " -c 3 -j 2 --circuit mul:64 --partitions 2");
    ASSERT_EQ(bench.code, 0) << bench.out;
    EXPECT_NE(bench.out.find("proofs/min"), std::string::npos) << bench.out;
    EXPECT_NE(bench.out.find("p95"), std::string::npos) << bench.out;

    auto down = cuzk_cli(sut, "down " + cfg);
    EXPECT_EQ(down.code, 0) << down.out;
    EXPECT_NE(down.out.find("cuzk-assemblerd stopped"), std::string::npos) << down.out;
    EXPECT_EQ(cuzk_cli(sut, "status " + cfg).code, 3);
}
