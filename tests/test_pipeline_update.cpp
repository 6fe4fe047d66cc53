// A SnapDeals update through the three daemons (`cuzk up`, CPU backend) on the daemons' protocol
// (`cuzk submit --update`, the files `cuzk seal-test --update` writes): the 2 KiB update's one partition proved
// in a ring slot, verified by assemblerd before it is returned, and valid again by `cuzk verify-update`, a
// verifier outside the service; a truncated partition file and a wrong comm_d_new are refused at submission
// (exit 2) naming the partition and what is wrong, and the daemons keep serving. The larger registered sizes
// (8 MiB: 4 partitions of ~10 M constraints) are too slow for the CPU backend of the 2-core test machine; their
// job files are covered by test_daemon_update_job_input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/daemons_up.hpp"
#include "support/pipeline.hpp"
#include "support/run_command.hpp"
#include "support/shared_outputs.hpp"

using namespace cuzk;
using cuzk::test::daemons_up;
using cuzk::test::pipeline;
using cuzk::test::run_cuzk;

namespace {

TEST(PipelineUpdate, TwoKiBUpdateIsProvedVerifiedAndBadInputsRefusedNamingThem) {
    cuzk::test::pipeline_options o;
    o.slots = 2;
    o.gpud_workers = 1;
    o.partition_timeout_s = 600;
    o.slot_bytes = 96ull << 20;  // the 2 KiB update's witness: 1.7 M constraints
    pipeline sut(o);
    const auto dir = sut.dir();
    const auto params_dir = sut.config().gpud.params_dir;
    const std::string cfg = "--config " + (dir / "cuzk.toml").string();

    auto seal = run_cuzk("seal-test --registered-proof StackedDrgUpdate2KiBV1 --update --seed pipeline-update --out " +
                         (dir / "seal").string());
    ASSERT_EQ(seal.exit_code, 0) << seal.output;
    auto setup = cuzk::test::setup_into("update:StackedDrgUpdate2KiBV1", params_dir);
    ASSERT_EQ(setup.exit_code, 0) << setup.output;
    nlohmann::json update;
    std::ifstream(dir / "seal" / "update.json") >> update;
    ASSERT_EQ(update["partitions"].get<int>(), 1) << update.dump();
    const auto partition = (dir / "seal" / update["partition_proofs"][0].get<std::string>()).string();
    const auto comm = [&](const char* name) { return update[name].get<std::string>(); };
    const auto comms = [&](const std::string& comm_d_new) {
        return " --comm-r-old " + comm("comm_r_old") + " --comm-d-new " + comm_d_new + " --comm-r-new " +
               comm("comm_r_new");
    };
    const std::string submit = "submit " + cfg + " --update StackedDrgUpdate2KiBV1";

    daemons_up guard{cfg, sut.config().runtime.dir / "logs"};
    auto up = run_cuzk("up " + cfg);
    ASSERT_EQ(up.exit_code, 0) << up.output;

    // A partition file cut short: refused before any synthesis, naming the partition and the byte.
    const auto truncated = dir / "truncated.bin";
    {
        std::ifstream in(partition, std::ios::binary);
        std::vector<char> b((std::istreambuf_iterator<char>(in)), {});
        b.resize(b.size() - 100);
        std::ofstream(truncated, std::ios::binary).write(b.data(), std::streamsize(b.size()));
    }
    auto cut = run_cuzk(submit + " --vanilla " + truncated.string() + comms(comm("comm_d_new")));
    EXPECT_EQ(cut.exit_code, 2) << cut.output;
    EXPECT_NE(cut.output.find("partition 0"), std::string::npos) << cut.output;
    EXPECT_NE(cut.output.find("byte"), std::string::npos) << cut.output;

    // Another comm_d_new (still a field element): the partition's tree D does not reach it.
    auto wrong_d = comm("comm_d_new");
    wrong_d[0] = wrong_d[0] == '0' ? '1' : '0';
    auto wrong = run_cuzk(submit + " --vanilla " + partition + comms(wrong_d));
    EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
    EXPECT_NE(wrong.output.find("comm_d_new"), std::string::npos) << wrong.output;
    EXPECT_NE(wrong.output.find("partition 0"), std::string::npos) << wrong.output;

    // The wrong partition count is the client's to see before anything is sent.
    auto two = run_cuzk(submit + " --vanilla " + partition + " " + partition + comms(comm("comm_d_new")));
    EXPECT_EQ(two.exit_code, 2) << two.output;
    EXPECT_NE(two.output.find("exactly 1"), std::string::npos) << two.output;

    // The daemons serve on: the good update is proved, verified by assemblerd, and valid outside the service.
    auto sub = run_cuzk(submit + " --vanilla " + partition + comms(comm("comm_d_new")));
    ASSERT_EQ(sub.exit_code, 0) << sub.output;
    const auto id = sub.output.substr(0, sub.output.find('\n'));
    const auto proof = dir / "update.bin";
    auto done = run_cuzk("await " + cfg + " " + id + " --out " + proof.string());
    ASSERT_EQ(done.exit_code, 0) << done.output << sut.status_text();
    ASSERT_EQ(std::filesystem::file_size(proof), 192u);
    const std::string verify = "verify-update --vk " + (params_dir / "update_StackedDrgUpdate2KiBV1.vk").string() +
                               " --registered-proof StackedDrgUpdate2KiBV1 --proof " + proof.string();
    auto ok = run_cuzk(verify + comms(comm("comm_d_new")));
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    EXPECT_EQ(run_cuzk(verify + comms(wrong_d)).exit_code, 1) << "another comm_d_new";

    auto status = run_cuzk("status --json " + cfg);
    ASSERT_EQ(status.exit_code, 0) << status.output;
    const auto j = nlohmann::json::parse(status.output);
    ASSERT_EQ(j["assemblerd"]["jobs"].size(), 1u) << status.output;
    EXPECT_EQ(j["assemblerd"]["jobs"][0]["circuit"], "update:StackedDrgUpdate2KiBV1") << status.output;
    EXPECT_EQ(j["assemblerd"]["jobs"][0]["kind"], "snap-update") << status.output;
    EXPECT_EQ(j["assemblerd"]["proofs_completed"]["snap-update"], 1) << status.output;
}

}  // namespace
