// WindowPoSt and WinningPoSt through the three daemons (`cuzk up`, CPU backend), sent over the gRPC API as Curio
// sends them (`cuzk api prove --vanilla`: proof kinds WINDOW_POST_PARTITION and WINNING_POST, the bincode vanilla
// proofs seal-test writes, the Go abi registered proof, 32 bytes of randomness): each proof verified by assemblerd
// before it is returned, and valid again by `cuzk verify-post`, a verifier outside the service; a vanilla proof
// that does not verify natively is refused at submission naming it, the daemons serving on; then several PoSt
// jobs at once behind other work through `cuzk submit --post`, each with its own valid proof.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
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

const std::string randomness = "0d2b1ac76d9c8a4b31f6e0a2c1d59f4a7e3b8c6d2f1a0e9b8c7d6e5f4a3b2c11";

TEST(PipelinePost, WindowAndWinningPoStOverTheApiVerify) {
    cuzk::test::pipeline_options o;
    o.slots = 2;
    o.gpud_workers = 1;
    o.partition_timeout_s = 600;
    o.slot_bytes = 16ull << 20;
    pipeline sut(o);
    const auto dir = sut.dir();
    const auto params_dir = sut.config().gpud.params_dir;
    const std::string cfg = "--config " + (dir / "cuzk.toml").string();

    auto seal = run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --rng pipeline-post --sectors 2 --sector-id 7 "
                         "--post-randomness " + randomness + " --out " + (dir / "seal").string());
    ASSERT_EQ(seal.exit_code, 0) << seal.output;
    for (const char* circuit : {"post:StackedDrgWindow2KiBV1_1", "post:StackedDrgWinning2KiBV1"}) {
        auto setup = cuzk::test::setup_into(circuit, params_dir);
        ASSERT_EQ(setup.exit_code, 0) << setup.output;
    }
    nlohmann::json post;
    std::ifstream(dir / "seal" / "post.json") >> post;
    ASSERT_EQ(post["sectors"].size(), 2u) << post.dump();
    auto vanilla = [&](size_t sector, const char* kind) {
        return (dir / "seal" / post["sectors"][sector][std::string(kind) + "_vanilla"].get<std::string>()).string();
    };
    auto sector_arg = [&](size_t sector) {
        return " --sector " + std::to_string(post["sectors"][sector]["sector_id"].get<std::uint64_t>()) + ":" +
               post["sectors"][sector]["comm_r"].get<std::string>();
    };
    auto verify = [&](const std::string& name, const std::string& sectors, const std::filesystem::path& proof) {
        return run_cuzk("verify-post --vk " + (params_dir / ("post_" + name + ".vk")).string() +
                        " --registered-proof " + name + " --randomness " + randomness + sectors + " --proof " +
                        proof.string());
    };

    daemons_up guard{cfg, sut.config().runtime.dir / "logs"};
    auto up = run_cuzk("up " + cfg);
    ASSERT_EQ(up.exit_code, 0) << up.output;

    // A vanilla proof with one byte of a Merkle sibling changed: refused before any synthesis, naming it.
    const auto bad = dir / "bad.vanilla";
    {
        std::ifstream in(vanilla(0, "window"), std::ios::binary);
        std::vector<char> b((std::istreambuf_iterator<char>(in)), {});
        b.at(b.size() - 40) ^= 0x01;
        std::ofstream(bad, std::ios::binary).write(b.data(), std::streamsize(b.size()));
    }
    auto refused = run_cuzk("api prove " + cfg + " --registered-proof StackedDrgWindow2KiBV1_1 --randomness " +
                            randomness + " --vanilla " + bad.string() + " " + vanilla(1, "window") + " --out " +
                            (dir / "bad.bin").string());
    EXPECT_NE(refused.exit_code, 0) << refused.output;
    EXPECT_NE(refused.output.find("vanilla proof 0"), std::string::npos) << refused.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad.bin"));

    const auto window = dir / "window.bin";
    auto w = run_cuzk("api prove " + cfg + " --registered-proof StackedDrgWindow2KiBV1_1 --randomness " + randomness +
                      " --vanilla " + vanilla(0, "window") + " " + vanilla(1, "window") + " --out " + window.string());
    ASSERT_EQ(w.exit_code, 0) << w.output << sut.status_text();
    ASSERT_EQ(std::filesystem::file_size(window), 192u);
    auto w_ok = verify("StackedDrgWindow2KiBV1_1", sector_arg(0) + sector_arg(1), window);
    EXPECT_EQ(w_ok.exit_code, 0) << w_ok.output;
    EXPECT_EQ(verify("StackedDrgWindow2KiBV1_1", sector_arg(0), window).exit_code, 1) << "another sector set";

    const auto winning = dir / "winning.bin";
    auto win = run_cuzk("api prove " + cfg + " --registered-proof StackedDrgWinning2KiBV1 --randomness " + randomness +
                        " --vanilla " + vanilla(1, "winning") + " --out " + winning.string());
    ASSERT_EQ(win.exit_code, 0) << win.output << sut.status_text();
    ASSERT_EQ(std::filesystem::file_size(winning), 192u);
    auto win_ok = verify("StackedDrgWinning2KiBV1", sector_arg(1), winning);
    EXPECT_EQ(win_ok.exit_code, 0) << win_ok.output;

    auto status = run_cuzk("status --json " + cfg);
    ASSERT_EQ(status.exit_code, 0) << status.output;
    const auto j = nlohmann::json::parse(status.output);
    EXPECT_EQ(j["assemblerd"]["jobs"].size(), 2u) << status.output;

    // The partition histograms tell the kinds apart: an operator watches the WinningPoSt's lock wait alone.
    auto metrics = run_cuzk("api metrics " + cfg);
    ASSERT_EQ(metrics.exit_code, 0) << metrics.output;
    for (const char* kind : {"window_post", "winning_post"})
        for (const char* family : {"cuzk_partition_synthesis_seconds", "cuzk_cuda_lock_wait_seconds",
                                   "cuzk_cuda_lock_hold_seconds", "cuzk_partition_gpud_seconds"}) {
            const std::string line = std::string(family) + "_count{proof_kind=\"" + kind + "\"} 1\n";
            EXPECT_NE(metrics.output.find(line), std::string::npos) << line << " not in:\n" << metrics.output;
        }
    // And assemblerd's log says where each job's time went.
    {
        std::ifstream in(sut.config().runtime.dir / "logs" / "assemblerd.log");
        const std::string log((std::istreambuf_iterator<char>(in)), {});
        EXPECT_NE(log.find("(winning-post, priority 200): 1 partition, verified in "), std::string::npos) << log;
        EXPECT_NE(log.find("CUDA lock wait "), std::string::npos) << log;
    }

    // Several PoSt jobs at once behind other work (test-circuit jobs standing for PoRep), on the daemons'
    // protocol (`cuzk submit --post`): every one gets its own proof, valid (the original cuzk's queue dropped
    // the first of two waiting PoSt jobs).
    for (int i = 0; i < 2; ++i) {
        auto busy = run_cuzk("submit " + cfg + " --circuit mul:16384 --partitions 3 --seed " + std::to_string(10 * i));
        ASSERT_EQ(busy.exit_code, 0) << busy.output;
    }
    struct post_job {
        std::string name, sectors, id;
    };
    std::vector<post_job> jobs;
    for (int i = 0; i < 2; ++i) {
        jobs.push_back({"StackedDrgWinning2KiBV1", sector_arg(1),
                        "--vanilla " + vanilla(1, "winning")});
        jobs.push_back({"StackedDrgWindow2KiBV1_1", sector_arg(0) + sector_arg(1),
                        "--vanilla " + vanilla(0, "window") + " " + vanilla(1, "window")});
    }
    for (auto& p : jobs) {
        auto sub = run_cuzk("submit " + cfg + " --post " + p.name + " --randomness " + randomness + " " + p.id);
        ASSERT_EQ(sub.exit_code, 0) << sub.output;
        p.id = sub.output.substr(0, sub.output.find('\n'));
    }
    std::set<std::string> ids;
    for (const auto& p : jobs) {
        ids.insert(p.id);
        const auto proof = dir / ("post-" + p.id + ".bin");
        auto done = run_cuzk("await " + cfg + " " + p.id + " --out " + proof.string());
        ASSERT_EQ(done.exit_code, 0) << done.output;
        auto ok = verify(p.name, p.sectors, proof);
        EXPECT_EQ(ok.exit_code, 0) << p.name << " job " << p.id << ": " << ok.output;
    }
    EXPECT_EQ(ids.size(), jobs.size()) << "one job each";
}

}  // namespace
