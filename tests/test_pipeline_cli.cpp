// The client commands against real daemons: up starts the three stages, prove/submit/await/status/cancel
// work through them, down stops them; the exit codes say unavailable (3) and bad input (2).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "ipc/cuda_lock.hpp"
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
    // Waiting without --out, and cancelling a job that has ended, do not deliver its proof: the result keeps
    // its full time to live. Only a fetch of the proof bytes marks it fetched.
    const auto fetched = [&] {
        const auto s = nlohmann::json::parse(cuzk_cli(sut, "status --json " + cfg).out);
        for (const auto& job : s["assemblerd"]["jobs"])
            if (std::to_string(job["job"].get<std::uint64_t>()) == id) return job.value("fetched", false);
        ADD_FAILURE() << "job " << id << " not in the status";
        return false;
    };
    auto wait_only = cuzk_cli(sut, "await " + cfg + " " + id);
    ASSERT_EQ(wait_only.code, 0) << wait_only.out;
    EXPECT_FALSE(fetched());
    EXPECT_EQ(cuzk_cli(sut, "cancel " + cfg + " " + id).code, 0);
    EXPECT_FALSE(fetched());
    auto await = cuzk_cli(sut, "await " + cfg + " " + id + " --out " + proof);
    ASSERT_EQ(await.code, 0) << await.out;
    EXPECT_EQ(std::filesystem::file_size(proof), 2 * ipc::partition_proof_bytes);
    EXPECT_TRUE(fetched());

    auto status = cuzk_cli(sut, "status --json " + cfg);
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
    EXPECT_NE(bench.out.find("3 jobs of mul:64 x 2 partitions"), std::string::npos) << bench.out;

    auto down = cuzk_cli(sut, "down " + cfg);
    EXPECT_EQ(down.code, 0) << down.out;
    EXPECT_NE(down.out.find("cuzk-assemblerd stopped"), std::string::npos) << down.out;
    EXPECT_EQ(cuzk_cli(sut, "status " + cfg).code, 3);
}

// `cuzk up --gpus 0,1`: one gpud per GPU (the CPU backend here) from one file whose [gpud] lock_name holds
// {gpu}, so each has its own CUDA lock; both answer in `cuzk status`, a job's partitions are proved, and
// `cuzk down` stops all four daemons. A --gpus list with a bad or repeated entry is bad input naming it, and
// starts nothing; a fixed lock name for several GPUs starts them with a warning.
TEST(PipelineCli, UpStartsOneGpudPerGpuAndDownStopsThemAll) {
    cuzk::test::pipeline_options o;
    o.gpud_backend = "cpu";
    pipeline sut(o);
    const std::string lock = sut.lock_name_of(0) + "-{gpu}";
    const auto path = sut.dir() / "cuzk-gpus.toml";
    std::ofstream(path) << sut.config_text(lock);
    const std::string cfg = "--config " + path.string();
    struct locks_removed {
        std::string base;
        ~locks_removed() {
            for (const char* gpu : {"0", "1"}) ipc::cuda_lock::remove(cuzk::test::named(base + "-" + gpu));
        }
    } cleanup{sut.lock_name_of(0)};

    auto bad = cuzk_cli(sut, "up " + cfg + " --gpus 0,x");
    EXPECT_EQ(bad.code, 2) << bad.out;
    EXPECT_NE(bad.out.find("'x' is not a GPU index"), std::string::npos) << bad.out;
    auto twice = cuzk_cli(sut, "up " + cfg + " --gpus 1,1");
    EXPECT_EQ(twice.code, 2) << twice.out;
    EXPECT_NE(twice.out.find("GPU 1 is named twice"), std::string::npos) << twice.out;
    EXPECT_EQ(cuzk_cli(sut, "status " + cfg).code, 3) << "a refused --gpus starts nothing";

    auto up = cuzk_cli(sut, "up " + cfg + " --gpus 0,1");
    ASSERT_EQ(up.code, 0) << up.out;
    EXPECT_NE(up.out.find("cuzk-gpud: ready"), std::string::npos) << up.out;
    EXPECT_NE(up.out.find("cuzk-gpud (GPU 1): ready"), std::string::npos) << up.out;
    auto again = cuzk_cli(sut, "up " + cfg + " --gpus 0,1");
    EXPECT_EQ(again.code, 0) << again.out;
    EXPECT_NE(again.out.find("cuzk-gpud (GPU 1): already running"), std::string::npos) << again.out;

    auto status = cuzk_cli(sut, "status --json " + cfg);
    ASSERT_EQ(status.code, 0) << status.out;
    const auto j = nlohmann::json::parse(status.out);
    ASSERT_EQ(j["gpuds"].size(), 2u) << status.out;
    for (int gpu = 0; gpu < 2; ++gpu) {
        EXPECT_EQ(j["gpuds"][gpu]["gpu"], gpu);
        EXPECT_EQ(j["gpuds"][gpu]["cuda_lock"]["name"], sut.lock_name_of(0) + "-" + std::to_string(gpu));
    }
    const auto proof = (sut.dir() / "proof.bin").string();
    auto prove = cuzk_cli(sut, "prove " + cfg + " --circuit mul:128 --partitions 4 --out " + proof);
    ASSERT_EQ(prove.code, 0) << prove.out;
    EXPECT_EQ(std::filesystem::file_size(proof), 4 * ipc::partition_proof_bytes);

    auto down = cuzk_cli(sut, "down " + cfg);
    EXPECT_EQ(down.code, 0) << down.out;
    EXPECT_NE(down.out.find("cuzk-gpud-1 stopped"), std::string::npos) << down.out;
    EXPECT_NE(down.out.find("cuzk-gpud stopped"), std::string::npos) << down.out;
    EXPECT_NE(down.out.find("cuzk-assemblerd stopped"), std::string::npos) << down.out;
    EXPECT_EQ(cuzk_cli(sut, "status " + cfg).code, 3);
    EXPECT_FALSE(std::filesystem::exists(sut.config().runtime.dir / "gpud-1.pid"));

    // A fixed lock name is one lock for both GPUs: they still prove, and `cuzk up` says so.
    const std::string fixed = "--config " + (sut.dir() / "cuzk.toml").string();
    auto shared = cuzk_cli(sut, "up " + fixed + " --gpus 0,1");
    EXPECT_EQ(shared.code, 0) << shared.out;
    EXPECT_NE(shared.out.find("is one CUDA lock for all 2 gpuds"), std::string::npos) << shared.out;
    EXPECT_EQ(cuzk_cli(sut, "down " + fixed).code, 0);
}

// Two `cuzk up` at once both start every stage; one copy of each wins its instance lock, the other exits. The
// pid files must name the winners (only a lock holder writes one), so that `cuzk down` stops every daemon.
// Before, each `cuzk up` wrote the pid of the process it forked: the last writer won, often a loser already
// gone, and `cuzk down` left the running daemon alone.
TEST(PipelineCli, TwoUpsAtOnceLeavePidFilesNamingTheRunningDaemons) {
    pipeline sut;
    const std::string cfg = "--config " + (sut.dir() / "cuzk.toml").string();
    for (int round = 0; round < 3; ++round) {
        auto first = std::async(std::launch::async, [&] { return cuzk_cli(sut, "up " + cfg); });
        auto second = std::async(std::launch::async, [&] { return cuzk_cli(sut, "up " + cfg); });
        const auto a = first.get(), b = second.get();
        ASSERT_TRUE(a.code == 0 || b.code == 0) << a.out << b.out;  // the one whose copies lost may fail
        const auto& rt = sut.config().runtime.dir;
        for (const auto& [file, stage] : {std::pair{"assemblerd.pid", "cuzk-assemblerd"}, std::pair{"synthd.pid", "cuzk-synthd"},
                                          std::pair{"gpud-0.pid", "cuzk-gpud"}}) {
            std::ifstream in(rt / file);
            pid_t pid = 0;
            ASSERT_TRUE(in >> pid) << file;
            std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
            std::string argv0;
            std::getline(cmdline, argv0, '\0');
            EXPECT_NE(argv0.find(stage), std::string::npos) << file << " names pid " << pid << ", not a running " << stage;
        }
        auto down = cuzk_cli(sut, "down " + cfg);
        EXPECT_EQ(down.code, 0) << down.out;
        EXPECT_EQ(cuzk_cli(sut, "status " + cfg).code, 3) << "a daemon still runs after `cuzk down` (round " << round << ")";
    }
}
