// The journal's record codec and the job table rebuilt from it: every record type round-trips; a malformed
// record is refused saying why; the table's live records rebuild an equal table.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "assemblerd/job_table.hpp"
#include "assemblerd/journal_records.hpp"

using namespace cuzk;
using namespace cuzk::assemblerd;
namespace jr = cuzk::assemblerd::journal_records;

namespace {

std::array<std::byte, ipc::partition_proof_bytes> proof_of(std::uint8_t v) {
    std::array<std::byte, ipc::partition_proof_bytes> p;
    p.fill(std::byte{v});
    return p;
}

std::string error_of(const journal_record& r) {
    try {
        jr::decode(r);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(JournalRecords, EveryTypeRoundTrips) {
    const std::vector<jr::record> records{
        jr::next_job_id{7},
        jr::submitted{3, -2, ipc::proof_kind::porep_c2, 10, 1234, "req 1", "jobs/3/input", "", std::nullopt},
        jr::submitted{4, 0, ipc::proof_kind::test_circuit, 1, 5, "", "jobs/4/input", std::string(32, '\xab'), std::nullopt},
        jr::submitted{5, 100, ipc::proof_kind::window_post, 1, 6, "", "jobs/5/input", "", 1001u},
        jr::partition_proved{3, 9, proof_of(0xab)},
        jr::finished{3, ipc::job_state::done, 99, ""},
        jr::finished{4, ipc::job_state::cancelled, 98, ""},
        jr::finished{5, ipc::job_state::failed, 97, "partition 1: bad input"},
        jr::finished{6, ipc::job_state::failed, 96, ""},
        jr::fetched{3, 100},
        jr::expired{3}};
    for (const auto& r : records) {
        const auto fields = jr::encode(r);
        for (const auto& f : fields) EXPECT_FALSE(f.empty() || f.find(' ') != std::string::npos) << fields[0];
        EXPECT_EQ(jr::encode(jr::decode(fields)), fields) << fields[0];
    }
    const auto s = std::get<jr::submitted>(jr::decode(jr::encode(records[1])));
    EXPECT_EQ(s.request_id, "req 1");
    EXPECT_EQ(s.priority, -2);
    EXPECT_EQ(s.kind, ipc::proof_kind::porep_c2);
    EXPECT_EQ(std::get<jr::finished>(jr::decode(jr::encode(records[7]))).error, "partition 1: bad input");
    EXPECT_EQ(std::get<jr::submitted>(jr::decode(jr::encode(records[3]))).owner_uid, 1001u);
    EXPECT_EQ(std::get<jr::submitted>(jr::decode(jr::encode(records[2]))).owner_uid, std::nullopt);
}

// Records of the two earlier layouts (8 fields: no digest; 9: no owner) read as jobs open to every client; an
// owner field that is not a uid is refused.
TEST(JournalRecords, ASubmitWrittenBeforeOwnersReadsWithNone) {
    const std::string digest = std::string(64, 'a');
    const auto s = std::get<jr::submitted>(jr::decode({"SUBMIT", "3", "0", "1", "2", "5", "-", "jobs/3/input", digest}));
    EXPECT_EQ(s.owner_uid, std::nullopt);
    EXPECT_EQ(s.request_digest, std::string(32, '\xaa'));
    EXPECT_EQ(std::get<jr::submitted>(jr::decode({"SUBMIT", "3", "0", "1", "2", "5", "-", "jobs/3/input", "-", "42"}))
                  .owner_uid,
              42u);
    EXPECT_NE(error_of({"SUBMIT", "3", "0", "1", "2", "5", "-", "jobs/3/input", "-", "4294967296"}), "");
    EXPECT_NE(error_of({"SUBMIT", "3", "0", "1", "2", "5", "-", "jobs/3/input", "-", "x"}), "");
}

TEST(JournalRecords, ASubmitWrittenBeforeTheDigestReadsWithNone) {
    const auto s = std::get<jr::submitted>(jr::decode({"SUBMIT", "3", "0", "1", "2", "5", "7231", "jobs/3/input"}));
    EXPECT_EQ(s.request_id, "r1");
    EXPECT_EQ(s.input, "jobs/3/input");
    EXPECT_EQ(s.request_digest, "");
    EXPECT_EQ(error_of({"SUBMIT", "3", "0", "1", "2", "5", "-"}), "7 fields, expected 10");
}

TEST(AssemblerJobTable, ARequestIdIsOneJobOnlyForTheSameRequest) {
    job_table sut(1000);
    const auto no_input = [](job&) {};
    sut.apply(jr::submitted{1, 0, ipc::proof_kind::test_circuit, 1, 10, "wdpost-1", "jobs/1/input", "d1", std::nullopt}, no_input);
    sut.apply(jr::submitted{2, 0, ipc::proof_kind::test_circuit, 1, 11, "wdpost-1", "jobs/2/input", "d2", std::nullopt}, no_input);
    EXPECT_EQ(sut.by_request("wdpost-1", "d1"), 1u);
    EXPECT_EQ(sut.by_request("wdpost-1", "d2"), 2u);
    EXPECT_EQ(sut.by_request("wdpost-1", "d3"), std::nullopt);
    EXPECT_EQ(sut.queue_position(*sut.find(2)), 1u);
    EXPECT_EQ(sut.queue_position(*sut.find(1)), 0u);
    sut.forget(1);
    EXPECT_EQ(sut.by_request("wdpost-1", "d1"), std::nullopt);
    EXPECT_EQ(sut.by_request("wdpost-1", "d2"), 2u);
}

TEST(JournalRecords, MalformedRecordsSayWhy) {
    EXPECT_EQ(error_of({"DONE", "1"}), "2 fields, expected 3");
    EXPECT_EQ(error_of({"PROOF", "1", "0", "abcd"}), "partition or proof size out of range");
    EXPECT_EQ(error_of({"BOGUS", "1"}), "unknown record type");
    EXPECT_THROW(jr::decode({"NEXT", "x"}), std::invalid_argument);
    EXPECT_THROW(jr::unhex("abc"), std::invalid_argument);
}

TEST(AssemblerJobTable, LiveRecordsRebuildTheTable) {
    job_table sut(1000);
    const auto no_input = [](job&) {};
    sut.apply(jr::submitted{1, 0, ipc::proof_kind::test_circuit, 2, 10, "r1", "jobs/1/input", "", std::nullopt}, no_input);
    sut.apply(jr::submitted{2, 3, ipc::proof_kind::test_circuit, 1, 11, "", "jobs/2/input", "", std::nullopt}, no_input);
    sut.apply(jr::partition_proved{1, 1, proof_of(1)}, no_input);
    sut.apply(jr::finished{2, ipc::job_state::failed, 50, "gone"}, no_input);
    sut.apply(jr::fetched{2, 60}, no_input);
    EXPECT_EQ(sut.next_id(), 3u);
    EXPECT_EQ(sut.by_request("r1", ""), 1u);
    EXPECT_EQ(sut.find(1)->partitions[1].state, partition_state::proved);
    EXPECT_EQ(sut.find(2)->expires_ms, 50u + 1000);  // the ttl ends before the grace after fetching would
    EXPECT_EQ(sut.pending(), 1u);

    job_table again(1000);
    for (const auto& r : sut.live_records()) again.apply(r, no_input);
    std::vector<journal_record> a, b;
    for (const auto& r : sut.live_records()) a.push_back(jr::encode(r));
    for (const auto& r : again.live_records()) b.push_back(jr::encode(r));
    EXPECT_EQ(a, b);
    EXPECT_EQ(again.find(2)->error, "gone");

    sut.apply(jr::expired{2}, no_input);
    EXPECT_EQ(sut.find(2), nullptr);
    EXPECT_THROW(sut.apply(jr::fetched{2, 70}, no_input), std::runtime_error);
    EXPECT_THROW(sut.apply(jr::partition_proved{1, 5, proof_of(1)}, no_input), std::runtime_error);
}

TEST(AssemblerJobTable, AJobWhoseInputIsLostIsKeptFailed) {
    job_table sut(1000);
    sut.apply(jr::submitted{1, 0, ipc::proof_kind::test_circuit, 2, 10, "", "jobs/1/input", "", std::nullopt},
              [](job&) { throw std::runtime_error("no such file"); });
    ASSERT_NE(sut.find(1), nullptr);
    EXPECT_EQ(sut.find(1)->state, ipc::job_state::failed);
    EXPECT_NE(sut.find(1)->error.find("job input lost from the spool: no such file"), std::string::npos);
}
