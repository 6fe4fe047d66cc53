// The three daemons as real processes: jobs of several partitions come back with every partition proof
// valid; a repeated request id returns the same job; malformed and unsupported requests get error replies
// and the daemons keep serving; proofs that do not verify fail their job (verified off assemblerd's loop) and
// the service goes on; max_pending_jobs gives queue_full; the journal is compacted while running, and what
// it keeps replays to the same service.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/groth16/setup.hpp"
#include "support/pipeline.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

TEST(PipelineJobs, ThreeJobsOfSeveralPartitionsAllValid) {
    pipeline sut;
    sut.start_all();
    const std::string circuit = "mul:512";
    std::vector<std::uint64_t> ids;
    for (std::uint64_t j = 0; j < 3; ++j) ids.push_back(sut.submit_ok(circuit, 3, 100 * j + 1));
    for (std::size_t j = 0; j < ids.size(); ++j) {
        const auto r = sut.await(ids[j]);
        EXPECT_EQ(r.partitions_done, 3u);
        sut.expect_valid(r, circuit, 3, 100 * j + 1);
        // The spool keeps the assembled proof as the reply gave it.
        EXPECT_EQ(std::filesystem::file_size(r.result_path), r.proof.size());
    }
    const auto status = nlohmann::json::parse(sut.status_text());
    EXPECT_EQ(status["jobs"].size(), 3u);
}

TEST(PipelineJobs, RepeatedRequestIdReturnsTheSameJob) {
    pipeline sut;
    sut.start("assemblerd");
    const auto first = sut.submit("mul:64", 2, 7, "request-A");
    const auto again = sut.submit("mul:64", 2, 7, "request-A");
    ASSERT_TRUE(std::holds_alternative<ipc::submit_reply_msg>(first));
    ASSERT_TRUE(std::holds_alternative<ipc::submit_reply_msg>(again));
    EXPECT_EQ(std::get<ipc::submit_reply_msg>(again).job_id, std::get<ipc::submit_reply_msg>(first).job_id);
    EXPECT_FALSE(std::get<ipc::submit_reply_msg>(first).duplicate);
    EXPECT_TRUE(std::get<ipc::submit_reply_msg>(again).duplicate);
    const auto other = sut.submit("mul:64", 2, 7, "request-B");
    EXPECT_NE(std::get<ipc::submit_reply_msg>(other).job_id, std::get<ipc::submit_reply_msg>(first).job_id);
}

TEST(PipelineJobs, MalformedRequestsGetErrorsAndDaemonsKeepServing) {
    pipeline sut;
    sut.start_all();
    for (const auto* stage : {"assemblerd", "synthd", "gpud"}) {
        const auto reply = sut.call_raw(stage, "{\"not\": \"a cuzk frame\"}");
        ASSERT_TRUE(reply.has_value()) << stage << " did not answer a malformed frame";
        const ipc::message& m = *reply;
        ASSERT_TRUE(std::holds_alternative<ipc::error_reply_msg>(m)) << stage;
        EXPECT_EQ(std::get<ipc::error_reply_msg>(m).code, ipc::error_code::bad_request);
        EXPECT_NE(std::get<ipc::error_reply_msg>(m).text.find("magic"), std::string::npos);
    }
    // Well-formed but wrong: an input named by a path (the service opens no file a client names), an empty input,
    // a PoRep job whose input is not a C1, a bad test job.
    auto by_path = sut.call("assemblerd", ipc::submit_msg{"", "", ipc::proof_kind::test_circuit, 0, ipc::c1_source::path,
                                                          "/etc/hostname", {}});
    ASSERT_TRUE(by_path && std::holds_alternative<ipc::error_reply_msg>(*by_path));
    EXPECT_NE(std::get<ipc::error_reply_msg>(*by_path).text.find("'/etc/hostname') is not taken"), std::string::npos)
        << std::get<ipc::error_reply_msg>(*by_path).text;
    auto empty = sut.call("assemblerd", ipc::submit_msg{"", "", ipc::proof_kind::test_circuit, 0,
                                                        ipc::c1_source::inline_bytes, "job.json", {}});
    ASSERT_TRUE(empty && std::holds_alternative<ipc::error_reply_msg>(*empty));
    EXPECT_NE(std::get<ipc::error_reply_msg>(*empty).text.find("job.json is empty"), std::string::npos)
        << std::get<ipc::error_reply_msg>(*empty).text;
    const auto not_c1 = sut.write_job("mul:8", 1, 1);
    auto porep = sut.call("assemblerd", pipeline::submit_of_file(ipc::proof_kind::porep_c2, not_c1));
    ASSERT_TRUE(porep && std::holds_alternative<ipc::error_reply_msg>(*porep));
    EXPECT_NE(std::get<ipc::error_reply_msg>(*porep).text.find(not_c1), std::string::npos)
        << std::get<ipc::error_reply_msg>(*porep).text;
    const auto bad_job = (sut.dir() / "bad.json").string();
    std::ofstream(bad_job) << R"({"circuit": "nope:3", "partitions": 2})";
    auto bad = sut.call("assemblerd", pipeline::submit_of_file(ipc::proof_kind::test_circuit, bad_job));
    ASSERT_TRUE(bad && std::holds_alternative<ipc::error_reply_msg>(*bad));
    EXPECT_NE(std::get<ipc::error_reply_msg>(*bad).text.find("circuit"), std::string::npos);
    auto unknown = sut.call("assemblerd", ipc::await_msg{987654, 0});
    ASSERT_TRUE(unknown && std::holds_alternative<ipc::error_reply_msg>(*unknown));
    EXPECT_EQ(std::get<ipc::error_reply_msg>(*unknown).code, ipc::error_code::unknown_job);

    // Still serving: a job goes through.
    const auto id = sut.submit_ok("mul:64", 2, 5);
    sut.expect_valid(sut.await(id), "mul:64", 2, 5);
}

TEST(PipelineJobs, ProofsThatDoNotVerifyFailTheJobAndTheServiceGoesOn) {
    pipeline sut;
    // mul:32's parameters from one setup, its vk from another: every partition proof is a good proof that
    // the assembler's vk rejects.
    const auto dir = sut.config().gpud.params_dir;
    std::filesystem::create_directories(dir);
    const auto circuit = circuits::make_circuit("mul:32");
    const auto params = groth16::generate_random_parameters(*circuit).params;
    groth16::write_parameters(daemon::params_path(dir, "mul:32"), params);
    groth16::write_vk(daemon::vk_path(dir, "mul:32"), groth16::generate_random_parameters(*circuit).params.vk);
    sut.start_all();
    const auto bad = sut.await(sut.submit_ok("mul:32", 2, 3));
    EXPECT_EQ(bad.state, ipc::job_state::failed);
    EXPECT_NE(bad.error.find("partition proofs 0, 1 do not verify with " + daemon::vk_path(dir, "mul:32").string()),
              std::string::npos)
        << bad.error;
    EXPECT_TRUE(bad.proof.empty());
    // The operator puts the right verifying key in place: the next job verifies with it, without a restart.
    const auto fixed = daemon::vk_path(dir, "mul:32").string() + ".new";
    groth16::write_vk(fixed, params.vk);
    std::filesystem::rename(fixed, daemon::vk_path(dir, "mul:32"));
    sut.expect_valid(sut.await(sut.submit_ok("mul:32", 2, 4)), "mul:32", 2, 4);
    const auto good = sut.await(sut.submit_ok("mul:16", 2, 3));
    sut.expect_valid(good, "mul:16", 2, 3);
    const auto status = nlohmann::json::parse(sut.status_text());
    EXPECT_EQ(status["verifying_jobs"], 0);
}

TEST(PipelineJobs, MaxPendingJobsGivesQueueFull) {
    pipeline sut({.max_pending_jobs = 2});
    sut.start("assemblerd");  // nothing proves: jobs stay pending
    sut.submit_ok("mul:64", 1, 1);
    sut.submit_ok("mul:64", 1, 2);
    const auto r = sut.submit("mul:64", 1, 3);
    ASSERT_TRUE(std::holds_alternative<ipc::error_reply_msg>(r));
    EXPECT_EQ(std::get<ipc::error_reply_msg>(r).code, ipc::error_code::queue_full);
    EXPECT_NE(std::get<ipc::error_reply_msg>(r).text.find("max_pending_jobs"), std::string::npos);
}

// A running assemblerd rewrites its journal with the kept jobs' records each time it has grown by
// [assemblerd] journal_compact_kib (here 4 KiB: a few jobs), not only at start; results expire meanwhile, and
// a restart replays the compacted journal to the same jobs and job ids.
TEST(PipelineJobs, TheJournalIsCompactedWhileRunning) {
    pipeline sut({.assemblerd_config = "journal_compact_kib = 4\nresult_ttl_s = 3"});
    sut.start_all();
    const std::string circuit = "mul:64";
    std::vector<std::uint64_t> ids;
    for (std::uint64_t j = 0; j < 12; ++j) ids.push_back(sut.submit_ok(circuit, 2, 500 + j));
    for (std::size_t j = 0; j < ids.size(); ++j) sut.expect_valid(sut.await(ids[j]), circuit, 2, 500 + j);
    const auto journal_path = sut.config().runtime.spool_dir / "journal";
    ASSERT_TRUE(pipeline::wait_for([&] { return sut.log_of("assemblerd").find("compacted while running") != std::string::npos; },
                                   std::chrono::seconds(30)))
        << "12 jobs of 2 partitions write well over 4 KiB of records:\n" << sut.log_of("assemblerd");
    // The results expire (3 s): their jobs leave the table, and a later compaction leaves their records out.
    ASSERT_TRUE(pipeline::wait_for([&] { return nlohmann::json::parse(sut.status_text())["jobs"].empty(); },
                                   std::chrono::seconds(30)))
        << sut.status_text();
    const auto kept = sut.submit_ok(circuit, 2, 600);
    sut.expect_valid(sut.await(kept), circuit, 2, 600);
    sut.stop("assemblerd");
    sut.start("assemblerd");
    const auto status = nlohmann::json::parse(sut.status_text());
    ASSERT_EQ(status["jobs"].size(), 1u) << "the job not yet expired is replayed: " << status.dump();
    EXPECT_EQ(status["jobs"][0]["state"], "done");
    const auto next = sut.submit_ok(circuit, 2, 601);
    EXPECT_GT(next, kept) << "job ids go on from the compacted journal's";
    sut.expect_valid(sut.await(next), circuit, 2, 601);
    EXPECT_LT(std::filesystem::file_size(journal_path), 64u * 1024) << "the journal stays near its live jobs' size";
}
