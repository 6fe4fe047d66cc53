// The API's checks of a SubmitProofRequest (api/submission.hpp) and its circuit ids, against a 2 KiB C1 that
// `cuzk seal-test` seals for actor 1000: what Curio sends is taken, what it could get wrong is refused with
// the gRPC code and the field named.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/api_client.hpp"
#include "api/api_error.hpp"
#include "api/circuit_ids.hpp"
#include "api/submission.hpp"
#include "daemon/post_job_input.hpp"
#include "support/run_command.hpp"

namespace {

using namespace cuzk;
namespace v1 = cuzk::v1;

// grpc's code and message of what |f| throws; OK when it throws nothing.
template <class F>
std::pair<grpc::StatusCode, std::string> outcome(F&& f) {
    try {
        f();
    } catch (const api::api_error& e) {
        return {e.code(), e.what()};
    }
    return {grpc::StatusCode::OK, ""};
}

class ApiSubmission : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = std::filesystem::temp_directory_path() / ("cuzk-api-submission-" + std::to_string(::getpid()));
        // The prover id of actor 1000: LEB128 e8 07, zero padded.
        const auto r = test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --rng api --sector-id 7 "
                                      "--prover-id e807000000000000000000000000000000000000000000000000000000000000 "
                                      "--out " +
                                      dir_.string());
        ASSERT_EQ(r.exit_code, 0) << r.output;
        std::ifstream in(dir_ / "c1.json");
        std::stringstream s;
        s << in.rdbuf();
        c1_ = s.str();
    }
    static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }

    // Curio's request for the sealed sector.
    static v1::SubmitProofRequest curio() { return api::curio_porep_request(c1_, 5, 2048, 1000, 7); }

    static inline std::filesystem::path dir_;
    static inline std::string c1_;
};

TEST_F(ApiSubmission, CuriosPoRepRequestIsTakenAsItIs) {
    const auto s = api::check_submission(curio());
    EXPECT_EQ(s.kind, ipc::proof_kind::porep_c2);
    EXPECT_EQ(s.priority, 0);
    EXPECT_EQ(s.request_id, "porep-1000-7");
    EXPECT_EQ(s.payload, curio().vanilla_proof());  // the wrapper is spooled as sent: the C1 reader takes it
    EXPECT_EQ(s.digest.size(), 64u);
}

TEST_F(ApiSubmission, AC1OfAnotherMinerOrSectorIsRefused) {
    auto other_miner = curio();
    other_miner.set_miner_id(1001);
    auto [code, text] = outcome([&] { api::check_submission(other_miner); });
    EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(text.find("miner_id 1001"), std::string::npos) << text;
    auto other_sector = curio();
    other_sector.set_sector_number(8);
    EXPECT_EQ(outcome([&] { api::check_submission(other_sector); }).first, grpc::StatusCode::INVALID_ARGUMENT);
    auto unchecked = curio();  // no miner id: nothing to check the replica id against
    unchecked.set_miner_id(0);
    EXPECT_EQ(outcome([&] { api::check_submission(unchecked); }).first, grpc::StatusCode::OK);
}

TEST_F(ApiSubmission, RegisteredProofMustMatchSectorSizeAndTheC1) {
    auto v1_number = curio();
    v1_number.set_registered_proof(0);  // StackedDrg2KiBV1: the C1 is V1_1
    auto [code, text] = outcome([&] { api::check_submission(v1_number); });
    EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(text.find("registered_proof 0"), std::string::npos) << text;

    auto size = curio();
    size.set_sector_size(34359738368ull);
    std::tie(code, text) = outcome([&] { api::check_submission(size); });
    EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(text.find("sector_size 34359738368"), std::string::npos) << text;

    auto unknown = curio();
    unknown.set_registered_proof(42);
    std::tie(code, text) = outcome([&] { api::check_submission(unknown); });
    EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(text.find("registered_proof 42"), std::string::npos) << text;
}

TEST_F(ApiSubmission, APayloadThatDoesNotParseNamesVanillaProof) {
    auto bad = curio();
    bad.set_vanilla_proof("not json");
    auto [code, text] = outcome([&] { api::check_submission(bad); });
    EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(text.find("vanilla_proof"), std::string::npos) << text;

    auto wrapper = nlohmann::json::parse(curio().vanilla_proof());
    wrapper["Phase1Out"] = "!!!not base64";
    auto bad_base64 = curio();
    bad_base64.set_vanilla_proof(wrapper.dump());
    std::tie(code, text) = outcome([&] { api::check_submission(bad_base64); });
    EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(text.find("Phase1Out"), std::string::npos) << text;
}

TEST(ApiSubmissionKinds, SnapDealsNeedsItsCommitmentsAndUnknownKindsAreInvalid) {
    {
        // SNAP_DEALS_UPDATE (2) is proved: a request without its commitments is refused naming the first.
        v1::SubmitProofRequest r;
        r.set_proof_kind(static_cast<v1::ProofKind>(2));
        r.add_vanilla_proofs("x");
        auto [code, text] = outcome([&] { api::check_submission(r); });
        EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT);
        EXPECT_NE(text.find("comm_r_old"), std::string::npos) << text;
    }
    for (const int kind : {0, 5, 99}) {
        v1::SubmitProofRequest r;
        r.set_proof_kind(static_cast<v1::ProofKind>(kind));
        auto [code, text] = outcome([&] { api::check_submission(r); });
        EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT) << kind;
        EXPECT_NE(text.find("proof_kind"), std::string::npos) << text;
    }
    v1::SubmitProofRequest priority;
    priority.set_proof_kind(v1::POREP_SEAL_COMMIT);
    priority.set_priority(static_cast<v1::Priority>(9));
    EXPECT_NE(outcome([&] { api::check_submission(priority); }).second.find("priority 9"), std::string::npos);
}

// WINDOW_POST_PARTITION and WINNING_POST as Curio sends them become a PoSt job input (its vanilla proofs decoded by
// assemblerd's check); each field the API can judge alone is checked here, the error naming it.
TEST(ApiSubmissionKinds, PoStRequestsAreCheckedFieldByField) {
    auto request = [](v1::ProofKind kind, std::uint64_t registered, int proofs) {
        v1::SubmitProofRequest r;
        r.set_proof_kind(kind);
        r.set_registered_proof(registered);
        r.set_randomness(std::string(31, '\x11') + std::string(1, '\x01'));
        for (int i = 0; i < proofs; ++i) r.add_vanilla_proofs("vanilla");
        return r;
    };
    // Window 2 KiB V1_1 is Go id 10, Winning 2 KiB 0.
    const auto window = api::check_submission(request(v1::WINDOW_POST_PARTITION, 10, 2));
    EXPECT_EQ(window.kind, ipc::proof_kind::window_post);
    EXPECT_EQ(window.priority, 100) << "HIGH by default";
    const auto in = daemon::parse_post_job_header(std::span(
        reinterpret_cast<const std::uint8_t*>(window.payload.data()), window.payload.size()));
    EXPECT_EQ(in.first->name, "StackedDrgWindow2KiBV1_1");
    EXPECT_EQ(in.second, 2u);
    const auto winning = api::check_submission(request(v1::WINNING_POST, 0, 1));
    EXPECT_EQ(winning.kind, ipc::proof_kind::winning_post);
    EXPECT_EQ(winning.priority, 200) << "CRITICAL by default";

    const std::vector<std::pair<v1::SubmitProofRequest, std::string>> bad = {
        {request(v1::WINDOW_POST_PARTITION, 0, 1), "not a WindowPoSt proof"},
        {request(v1::WINNING_POST, 10, 1), "not a WinningPoSt proof"},
        {request(v1::WINDOW_POST_PARTITION, 15, 1), "registered_proof 15"},
        {request(v1::WINDOW_POST_PARTITION, 10, 3), "vanilla_proofs has 3 entries"},
        {request(v1::WINNING_POST, 0, 2), "vanilla_proofs has 2 entries"},
        {request(v1::WINNING_POST, 0, 0), "vanilla_proofs has 0 entries"},
    };
    for (const auto& [r, want] : bad) {
        auto [code, text] = outcome([&] { api::check_submission(r); });
        EXPECT_EQ(code, grpc::StatusCode::INVALID_ARGUMENT) << want;
        EXPECT_NE(text.find(want), std::string::npos) << text;
    }
    auto short_randomness = request(v1::WINNING_POST, 0, 1);
    short_randomness.set_randomness("abc");
    EXPECT_NE(outcome([&] { api::check_submission(short_randomness); }).second.find("randomness is 3 bytes"),
              std::string::npos);
    auto not_a_field_element = request(v1::WINNING_POST, 0, 1);
    not_a_field_element.set_randomness(std::string(32, '\xff'));
    EXPECT_EQ(outcome([&] { api::check_submission(not_a_field_element); }).first, grpc::StatusCode::INVALID_ARGUMENT);
    auto partition = request(v1::WINDOW_POST_PARTITION, 10, 1);
    partition.set_partition_index(1);
    EXPECT_NE(outcome([&] { api::check_submission(partition); }).second.find("partition_index 1"), std::string::npos);
    auto size = request(v1::WINDOW_POST_PARTITION, 10, 1);
    size.set_sector_size(4096);
    EXPECT_NE(outcome([&] { api::check_submission(size); }).second.find("sector_size 4096"), std::string::npos);
}

TEST(ApiSubmissionKinds, TestCircuitJobsTakeTheTestJobJson) {
    v1::SubmitProofRequest r;
    r.set_proof_kind(static_cast<v1::ProofKind>(api::test_circuit_kind));
    r.set_vanilla_proof(R"({"circuit": "mul:64", "partitions": 2, "seed": 1})");
    const auto s = api::check_submission(r);
    EXPECT_EQ(s.kind, ipc::proof_kind::test_circuit);
    r.set_vanilla_proof(R"({"circuit": "nope:1", "partitions": 2, "seed": 1})");
    EXPECT_EQ(outcome([&] { api::check_submission(r); }).first, grpc::StatusCode::INVALID_ARGUMENT);
}

TEST(ApiSubmissionKinds, TheDigestTellsRequestsApart) {
    v1::SubmitProofRequest r;
    r.set_request_id("wdpost-1000-0-[1 2 3 4 5 6 7 8]");
    r.set_proof_kind(static_cast<v1::ProofKind>(api::test_circuit_kind));
    r.set_vanilla_proof(R"({"circuit": "mul:64", "partitions": 2, "seed": 1})");
    const auto first = api::check_submission(r).digest;
    EXPECT_EQ(api::check_submission(r).digest, first);
    auto other = r;
    other.set_vanilla_proof(R"({"circuit": "mul:64", "partitions": 2, "seed": 2})");
    EXPECT_NE(api::check_submission(other).digest, first);
    other = r;
    other.set_priority(v1::HIGH);
    EXPECT_NE(api::check_submission(other).digest, first);
    other = r;
    other.set_randomness(std::string(32, '\x01'));
    EXPECT_NE(api::check_submission(other).digest, first);
}

TEST(ApiSubmissionKinds, PriorityAndProverIdAsCurioMeansThem) {
    EXPECT_EQ(api::internal_priority(v1::NORMAL, v1::POREP_SEAL_COMMIT), 0);
    EXPECT_EQ(api::internal_priority(v1::PRIORITY_UNSPECIFIED, v1::POREP_SEAL_COMMIT), 0);
    EXPECT_EQ(api::internal_priority(v1::PRIORITY_UNSPECIFIED, v1::WINNING_POST), 200);
    EXPECT_EQ(api::internal_priority(v1::PRIORITY_UNSPECIFIED, v1::WINDOW_POST_PARTITION), 100);
    EXPECT_EQ(api::internal_priority(v1::LOW, v1::POREP_SEAL_COMMIT), -100);
    EXPECT_LT(api::internal_priority(v1::HIGH, v1::POREP_SEAL_COMMIT),
              api::internal_priority(v1::CRITICAL, v1::POREP_SEAL_COMMIT));
    const auto p = api::prover_id_of(1000);  // filecoin-ffi's test value: e8 07 00 ...
    EXPECT_EQ(p[0], 0xe8);
    EXPECT_EQ(p[1], 0x07);
    for (std::size_t i = 2; i < p.size(); ++i) EXPECT_EQ(p[i], 0) << i;
    EXPECT_EQ(api::prover_id_of(0)[0], 0);
    const auto big = api::prover_id_of(~0ull);  // ten LEB128 bytes
    EXPECT_EQ(big[9], 0x01);
    EXPECT_EQ(big[8], 0xff);
    EXPECT_EQ(big[10], 0);
}

TEST(ApiCircuitIds, CuriosIdsAndCircuitSpecs) {
    EXPECT_EQ(api::circuit_spec_of("porep-32g"), "porep:StackedDrg32GiBV1_1");
    EXPECT_EQ(api::circuit_spec_of("porep-2k"), "porep:StackedDrg2KiBV1_1");
    EXPECT_EQ(api::circuit_spec_of("porep:StackedDrg2KiBV1"), "porep:StackedDrg2KiBV1");
    EXPECT_EQ(api::circuit_spec_of("mul:64"), "mul:64");
    EXPECT_EQ(api::circuit_id_of("porep:StackedDrg64GiBV1"), "porep-64g");
    EXPECT_EQ(api::circuit_id_of("mul:64"), "mul:64");
    EXPECT_EQ(api::circuit_spec_of("wpost-32g"), "post:StackedDrgWindow32GiBV1_1");
    EXPECT_EQ(api::circuit_spec_of("winning-32g"), "post:StackedDrgWinning32GiBV1");
    EXPECT_EQ(api::circuit_spec_of("post:StackedDrgWindow2KiBV1_1"), "post:StackedDrgWindow2KiBV1_1");
    EXPECT_EQ(outcome([] { api::circuit_spec_of("post:StackedDrgWindow3KiBV1"); }).first,
              grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(api::circuit_id_of("post:StackedDrgWindow32GiBV1"), "wpost-32g");
    EXPECT_EQ(api::circuit_id_of("post:StackedDrgWinning32GiBV1"), "winning-32g");
    EXPECT_EQ(api::proof_kind_of("post:StackedDrgWinning2KiBV1"), "winning-post");
    EXPECT_EQ(api::proof_kind_of("post:StackedDrgWindow2KiBV1_1"), "window-post");
    EXPECT_EQ(api::circuit_spec_of("snap-32g"), "update:StackedDrgUpdate32GiBV1");
    EXPECT_EQ(api::circuit_spec_of("snap-64g"), "update:StackedDrgUpdate64GiBV1");
    EXPECT_EQ(outcome([] { api::circuit_spec_of("no-such-circuit"); }).first, grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(outcome([] { api::circuit_spec_of("porep:StackedDrg3KiBV1"); }).first, grpc::StatusCode::INVALID_ARGUMENT);
}

TEST(ApiClient, Base64AsGoWritesBytes) {  // RFC 4648's test vectors
    EXPECT_EQ(api::base64(""), "");
    EXPECT_EQ(api::base64("f"), "Zg==");
    EXPECT_EQ(api::base64("fo"), "Zm8=");
    EXPECT_EQ(api::base64("foo"), "Zm9v");
    EXPECT_EQ(api::base64("foob"), "Zm9vYg==");
    EXPECT_EQ(api::base64("fooba"), "Zm9vYmE=");
    EXPECT_EQ(api::base64("foobar"), "Zm9vYmFy");
    EXPECT_EQ(api::base64(std::string("\xff\xfe\x00", 3)), "//4A");
}

}  // namespace
