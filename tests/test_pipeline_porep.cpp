// PoRep C2 through the three daemons, started by `cuzk up`: a 2 KiB sector sealed by seal-test, its
// parameters made once by `cuzk setup` into [gpud] params_dir (about a minute on two cores, the bulk of
// this test), then
//   - a C1 with one label flipped is refused at submission, the error naming the file and the JSON path;
//   - a C1 of a registered proof without parameters fails its job with the missing file named;
//   - `cuzk prove --c1` of the good C1 gives a 192-byte proof that `cuzk verify-seal` accepts,
// the daemons serving throughout.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/daemons_up.hpp"
#include "support/pipeline.hpp"
#include "support/run_command.hpp"
#include "support/shared_outputs.hpp"

using namespace cuzk;
using cuzk::test::daemons_up;
using cuzk::test::pipeline;

namespace {

struct result {
    int code;
    std::string out;
};

result cuzk_cli(const std::string& args) {
    auto r = cuzk::test::run_cuzk(args);
    return {r.exit_code, r.output};
}

TEST(PipelinePorep, C1ThroughTheDaemonsVerifiesWithVerifySeal) {
    cuzk::test::pipeline_options o;
    o.slots = 2;
    o.gpud_workers = 1;
    o.partition_timeout_s = 1800;   // a 2 KiB partition takes tens of seconds here: no re-dispatch meanwhile
    o.slot_bytes = 16ull << 20;     // the 2 KiB partition's compact witness: 2.2 MB
    pipeline sut(o);
    const auto dir = sut.dir();
    const auto params_dir = sut.config().gpud.params_dir;
    const std::string cfg = "--config " + (dir / "cuzk.toml").string();

    auto seal = cuzk_cli("seal-test --registered-proof StackedDrg2KiBV1_1 --rng pipeline --out " + (dir / "good").string());
    ASSERT_EQ(seal.code, 0) << seal.out;
    auto seal_v1 = cuzk_cli("seal-test --registered-proof StackedDrg2KiBV1 --rng pipeline --out " + (dir / "v1").string());
    ASSERT_EQ(seal_v1.code, 0) << seal_v1.out;
    auto setup = cuzk::test::setup_into("porep:StackedDrg2KiBV1_1", params_dir);
    ASSERT_EQ(setup.exit_code, 0) << setup.output;
    ASSERT_TRUE(std::filesystem::exists(params_dir / "porep_StackedDrg2KiBV1_1.params"));

    nlohmann::json c1;
    std::ifstream(dir / "good" / "c1.json") >> c1;
    auto& row = c1["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["replica_column_proofs"]["c_x"]["column"]["rows"][1];
    row[0] = row[0].get<int>() ^ 1;
    const auto flipped = dir / "flipped.json";
    std::ofstream(flipped) << c1.dump();

    daemons_up guard{cfg, sut.config().runtime.dir / "logs"};
    auto up = cuzk_cli("up " + cfg);
    ASSERT_EQ(up.code, 0) << up.out;

    auto bad = cuzk_cli("submit " + cfg + " --c1 " + flipped.string());
    EXPECT_EQ(bad.code, 2) << bad.out;
    EXPECT_NE(bad.out.find(flipped.string()), std::string::npos) << bad.out;
    EXPECT_NE(bad.out.find("$.vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x"), std::string::npos)
        << bad.out;

    auto no_params = cuzk_cli("submit " + cfg + " --c1 " + (dir / "v1" / "c1.json").string());
    ASSERT_EQ(no_params.code, 0) << no_params.out;
    const std::string failing_id = no_params.out.substr(0, no_params.out.find('\n'));

    const auto proof = dir / "proof.bin";
    auto prove = cuzk_cli("prove " + cfg + " --c1 " + (dir / "good" / "c1.json").string() + " --out " + proof.string());
    ASSERT_EQ(prove.code, 0) << prove.out << sut.status_text();
    ASSERT_EQ(std::filesystem::file_size(proof), 192u);

    auto failed = cuzk_cli("await " + cfg + " " + failing_id);
    EXPECT_EQ(failed.code, 1) << failed.out;
    EXPECT_NE(failed.out.find((params_dir / "porep_StackedDrg2KiBV1.params").string()), std::string::npos) << failed.out;

    nlohmann::json s;
    std::ifstream(dir / "good" / "seal.json") >> s;
    const std::string verify =
        "verify-seal --vk " + (params_dir / "porep_StackedDrg2KiBV1_1.vk").string() +
        " --registered-proof StackedDrg2KiBV1_1 --sector-id " + std::to_string(s["sector_id"].get<std::uint64_t>()) +
        " --prover-id " + s["prover_id"].get<std::string>() + " --ticket " + s["ticket"].get<std::string>() +
        " --seed " + s["seed"].get<std::string>() + " --comm-r " + s["comm_r"].get<std::string>() + " --comm-d " +
        s["comm_d"].get<std::string>() + " --proof " + proof.string();
    auto ok = cuzk_cli(verify);
    EXPECT_EQ(ok.code, 0) << ok.out;
    EXPECT_NE(ok.out.find("valid"), std::string::npos) << ok.out;

    auto status = cuzk_cli("status --json " + cfg);
    ASSERT_EQ(status.code, 0) << status.out;
    const auto j = nlohmann::json::parse(status.out);
    EXPECT_EQ(j["assemblerd"]["jobs"].size(), 2u) << status.out;
    EXPECT_EQ(j["gpud"]["stage"], "gpud");
}

}  // namespace
