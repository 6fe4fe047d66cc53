// SnapDeals over the gRPC API as Curio sends it (proof kind SNAP_DEALS_UPDATE: the Go abi RegisteredUpdateProof,
// one bincode PartitionProof per partition in vanilla_proofs, comm_r_old / comm_d_new / comm_r_new as 32 raw
// bytes): the request checked whole (INVALID_ARGUMENT naming the field), its job input the daemons' own, the
// priority NORMAL unless given; Curio's snap-32g / snap-64g circuit ids. Then through the daemons (`cuzk up`,
// CPU backend) with Prove: a truncated partition and a wrong comm_d_new are refused with INVALID_ARGUMENT naming
// the partition, the daemons serve on, and the 2 KiB update's proof comes back verified by assemblerd and valid
// by `cuzk verify-update`.
#include <gtest/gtest.h>

#include <grpcpp/grpcpp.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "api/api_client.hpp"
#include "api/api_error.hpp"
#include "api/circuit_ids.hpp"
#include "api/submission.hpp"
#include "common/update/update_shape.hpp"
#include "daemon/update_job_input.hpp"

// The API tests are not given the daemons' paths (tests/CMakeLists.txt); the pipeline fixture, used here for its
// configuration and directory only (`cuzk up` starts the daemons), names them beside the CLI's build directory.
namespace cuzk::test {
inline const char* stage_binary(const char* dir, const char* name) {
    static std::map<std::string, std::string> paths;
    auto& p = paths[name];
    if (p.empty()) p = (std::filesystem::path(CUZK_CLI_PATH).parent_path().parent_path() / dir / name).string();
    return p.c_str();
}
}  // namespace cuzk::test
#ifndef CUZK_ASSEMBLERD_PATH
#define CUZK_ASSEMBLERD_PATH cuzk::test::stage_binary("assemblerd", "cuzk-assemblerd")
#define CUZK_SYNTHD_PATH cuzk::test::stage_binary("synthd", "cuzk-synthd")
#define CUZK_GPUD_PATH cuzk::test::stage_binary("gpud", "cuzk-gpud")
#endif
#include "support/daemons_up.hpp"
#include "support/pipeline.hpp"
#include "support/run_command.hpp"
#include "support/shared_outputs.hpp"

using namespace cuzk;
using cuzk::test::run_cuzk;

namespace {

template <class F>
std::pair<grpc::StatusCode, std::string> outcome(F&& f) {
    try {
        f();
    } catch (const api::api_error& e) {
        return {e.code(), e.what()};
    }
    return {grpc::StatusCode::OK, ""};
}

std::string bytes_of_hex(const std::string& hex) {
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

std::string read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// The update `cuzk seal-test --update` wrote to |dir|, as Curio's SnapDeals request (registered proof 0: 2 KiB).
struct seal_test_update {
    nlohmann::json json;
    std::filesystem::path dir;

    v1::SubmitProofRequest request(const std::string& id) const {
        v1::SubmitProofRequest r;
        r.set_request_id(id);
        r.set_proof_kind(v1::SNAP_DEALS_UPDATE);
        r.set_sector_size(json["sector_size"].get<std::uint64_t>());
        r.set_registered_proof(json["registered_proof_id"].get<std::uint64_t>());
        r.set_priority(v1::NORMAL);
        for (const auto& f : json["partition_proofs"]) r.add_vanilla_proofs(read_bytes(dir / f.get<std::string>()));
        r.set_sector_number(7);
        r.set_miner_id(1000);
        r.set_comm_r_old(bytes_of_hex(json["comm_r_old"].get<std::string>()));
        r.set_comm_d_new(bytes_of_hex(json["comm_d_new"].get<std::string>()));
        r.set_comm_r_new(bytes_of_hex(json["comm_r_new"].get<std::string>()));
        return r;
    }
    std::string comms(const std::string& comm_d_new) const {
        return " --comm-r-old " + json["comm_r_old"].get<std::string>() + " --comm-d-new " + comm_d_new +
               " --comm-r-new " + json["comm_r_new"].get<std::string>();
    }
};

seal_test_update seal(const std::filesystem::path& dir) {
    auto r = run_cuzk("seal-test --registered-proof StackedDrgUpdate2KiBV1 --update --seed api-update --out " +
                      dir.string());
    EXPECT_EQ(r.exit_code, 0) << r.output;
    seal_test_update s;
    s.dir = dir;
    std::ifstream(dir / "update.json") >> s.json;
    return s;
}

class ApiUpdateSubmission : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = std::filesystem::temp_directory_path() / ("cuzk-api-update-" + std::to_string(::getpid()));
        update_ = seal(dir_);
    }
    static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
    static inline std::filesystem::path dir_;
    static inline seal_test_update update_;
};

TEST_F(ApiUpdateSubmission, CuriosRequestBecomesTheDaemonsJobInputAtNormalPriority) {
    auto r = update_.request("snap-1000-7");
    r.set_priority(v1::PRIORITY_UNSPECIFIED);
    const auto s = api::check_submission(r);
    EXPECT_EQ(s.kind, ipc::proof_kind::snap_update);
    EXPECT_EQ(s.priority, 0) << "NORMAL";
    EXPECT_EQ(s.request_id, "snap-1000-7");
    const auto in = daemon::parse_update_job_input(
        std::vector<std::uint8_t>(s.payload.begin(), s.payload.end()), "payload", false);
    EXPECT_EQ(in.circuit_spec(), "update:StackedDrgUpdate2KiBV1");
    EXPECT_EQ(in.pub.h, 1u);
    EXPECT_EQ(in.partitions(), 1u);

    r.set_priority(v1::HIGH);
    EXPECT_EQ(api::check_submission(r).priority, 100);
    r.set_sector_size(0);  // ProofShare's Snap requests leave it 0
    EXPECT_EQ(api::check_submission(r).kind, ipc::proof_kind::snap_update);
}

TEST_F(ApiUpdateSubmission, BadRequestsAreInvalidArgumentNamingTheField) {
    auto check = [](const v1::SubmitProofRequest& r, const std::string& named) {
        auto [code, text] = outcome([&] { api::check_submission(r); });
        EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT) << text;
        EXPECT_NE(text.find(named), std::string::npos) << text;
    };
    auto r = update_.request("bad");
    r.set_registered_proof(9);
    check(r, "registered_proof 9");
    r = update_.request("bad");
    r.set_sector_size(8 << 20);
    check(r, "sector_size");
    r = update_.request("bad");
    r.set_comm_r_old(r.comm_r_old().substr(0, 31));
    check(r, "comm_r_old is 31 bytes");
    r = update_.request("bad");
    r.set_comm_d_new(std::string(32, '\xff'));
    check(r, "comm_d_new is not a field element");
    r = update_.request("bad");
    r.clear_comm_r_new();
    check(r, "comm_r_new is 0 bytes");
    r = update_.request("bad");
    r.add_vanilla_proofs(r.vanilla_proofs(0));
    check(r, "vanilla_proofs has 2 entries");
    r = update_.request("bad");
    r.set_partition_index(3);
    check(r, "partition_index");
}

TEST(ApiUpdateCircuitIds, CuriosSnapIdsNameTheUpdateCircuits) {
    EXPECT_EQ(api::circuit_spec_of("snap-32g"), "update:StackedDrgUpdate32GiBV1");
    EXPECT_EQ(api::circuit_spec_of("snap-64g"), "update:StackedDrgUpdate64GiBV1");
    EXPECT_EQ(api::circuit_spec_of("update:StackedDrgUpdate2KiBV1"), "update:StackedDrgUpdate2KiBV1");
    EXPECT_EQ(outcome([] { api::circuit_spec_of("update:StackedDrgUpdate3KiBV1"); }).first,
              grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(api::circuit_id_of("update:StackedDrgUpdate32GiBV1"), "snap-32g");
    EXPECT_EQ(api::proof_kind_of("update:StackedDrgUpdate2KiBV1"), "snap-update");
}

TEST(ApiUpdateThroughTheDaemons, ProvedAndVerifiedBadInputsRefusedNamingThePartition) {
    cuzk::test::pipeline_options o;
    o.slots = 2;
    o.gpud_workers = 1;
    o.partition_timeout_s = 600;
    o.slot_bytes = 96ull << 20;  // the 2 KiB update's witness: 1.7 M constraints
    cuzk::test::pipeline sut(o);
    const auto dir = sut.dir();
    const auto params_dir = sut.config().gpud.params_dir;
    const std::string cfg = "--config " + (dir / "cuzk.toml").string();
    const auto update = seal(dir / "seal");
    auto setup = cuzk::test::setup_into("update:StackedDrgUpdate2KiBV1", params_dir);
    ASSERT_EQ(setup.exit_code, 0) << setup.output;

    cuzk::test::daemons_up guard{cfg, sut.config().runtime.dir / "logs"};
    auto up = run_cuzk("up " + cfg);
    ASSERT_EQ(up.exit_code, 0) << up.output;
    auto engine = api::connect(sut.config().api_listen());
    auto prove = [&](const v1::SubmitProofRequest& r, v1::ProveResponse& resp) {
        v1::ProveRequest req;
        *req.mutable_submit() = r;
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(10));
        return engine->Prove(&ctx, req, &resp);
    };

    auto truncated = update.request("snap-truncated");
    truncated.mutable_vanilla_proofs(0)->resize(truncated.vanilla_proofs(0).size() - 100);
    v1::ProveResponse resp;
    auto st = prove(truncated, resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message();
    EXPECT_NE(st.error_message().find("partition 0"), std::string::npos) << st.error_message();
    EXPECT_NE(st.error_message().find("byte"), std::string::npos) << st.error_message();

    auto wrong_d = update.request("snap-wrong-d");
    std::string d = wrong_d.comm_d_new();
    d[0] = static_cast<char>(d[0] ^ 1);
    wrong_d.set_comm_d_new(d);
    st = prove(wrong_d, resp);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << st.error_message();
    EXPECT_NE(st.error_message().find("comm_d_new"), std::string::npos) << st.error_message();
    EXPECT_NE(st.error_message().find("partition 0"), std::string::npos) << st.error_message();

    st = prove(update.request("snap-1000-7"), resp);
    ASSERT_TRUE(st.ok()) << st.error_message();
    ASSERT_EQ(resp.result().status(), v1::AwaitProofResponse::COMPLETED) << resp.result().error_message();
    ASSERT_EQ(resp.result().proof().size(), 192u);
    const auto proof = dir / "update.bin";
    std::ofstream(proof, std::ios::binary) << resp.result().proof();
    const std::string verify = "verify-update --vk " + (params_dir / "update_StackedDrgUpdate2KiBV1.vk").string() +
                               " --registered-proof StackedDrgUpdate2KiBV1 --proof " + proof.string();
    auto ok = run_cuzk(verify + update.comms(update.json["comm_d_new"].get<std::string>()));
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

}  // namespace
