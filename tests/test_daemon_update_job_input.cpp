// The SnapDeals job file (daemon/update_job_input.hpp): what the API and `cuzk submit --update` encode, assemblerd
// and synthd read back with the same public inputs per partition (verified at submission, unverified in synthd);
// a bad input is refused naming what and where: the header field and its byte offset, the partition (and the
// decoder's challenge and offset), a commitment that does not match the proofs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/update/public_inputs.hpp"
#include "common/update/sample_update.hpp"
#include "common/update/update_shape.hpp"
#include "common/update/vanilla_bincode.hpp"
#include "common/util/errors.hpp"
#include "daemon/update_job_input.hpp"

using namespace cuzk;

namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

daemon::bytes32 bytes32_of(const ff::fr_t& v) {
    daemon::bytes32 out{};
    v.to_bytes_le(out.data());
    return out;
}

struct update_job {
    const update::registered_update_proof& proof;
    update::sample_update sample;
    std::vector<std::string> partitions;  // bincode, partition k at k

    explicit update_job(const char* name, const char* seed)
        : proof(update::registered_update_proof_by_name(name)),
          sample(update::make_sample_update(proof.nodes(), seed)) {
        for (const auto& p : sample.partitions) {
            const auto b = update::encode_partition_proof(p);
            partitions.emplace_back(b.begin(), b.end());
        }
    }

    std::string encode(std::vector<std::string> parts, const ff::fr_t* comm_d_new = nullptr) const {
        return daemon::encode_update_job_input(proof, sample.h, bytes32_of(sample.comm_r_old),
                                               bytes32_of(comm_d_new ? *comm_d_new : sample.comm_d_new),
                                               bytes32_of(sample.comm_r_new),
                                               std::vector<std::string_view>(parts.begin(), parts.end()));
    }
    std::string encode() const { return encode(partitions); }
};

std::string refusal(const std::vector<std::uint8_t>& bytes, bool verify = true) {
    try {
        (void)daemon::parse_update_job_input(bytes, "job.input", false, verify);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

void put_u64_at(std::string& s, std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// Header offsets: magic 18, id 8, h 8, three commitments, the count.
constexpr std::size_t id_at = 18, h_at = 26, comm_r_old_at = 34, comm_d_new_at = 66, count_at = 130;

}  // namespace

TEST(DaemonUpdateJobInput, ReadsBackEveryPartitionsPublicInputsVerifiedOrNot) {
    const update_job job("StackedDrgUpdate2KiBV1", "job input");
    const auto bytes = bytes_of(job.encode());
    const auto in = daemon::parse_update_job_input(bytes, "good", true);
    ASSERT_EQ(in.proof, &job.proof);
    EXPECT_EQ(in.circuit_spec(), "update:StackedDrgUpdate2KiBV1");
    EXPECT_EQ(in.pub.h, job.sample.h);
    EXPECT_EQ(in.pub.comm_d_new, job.sample.comm_d_new);
    ASSERT_EQ(in.partitions(), 1u);
    const auto shape = job.proof.shape();
    EXPECT_EQ(in.public_inputs[0], update::generate_public_inputs(shape, 0, job.sample.h, job.sample.comm_r_old,
                                                                  job.sample.comm_d_new, job.sample.comm_r_new));
    ASSERT_NE(in.circuits, nullptr);
    ASSERT_EQ(in.circuits->size(), 1u);
    EXPECT_EQ(in.circuits->at(0).public_inputs(), in.public_inputs[0]);
    EXPECT_EQ(in.circuits->at(0).name(), "update:StackedDrgUpdate2KiBV1");

    const auto unverified = daemon::parse_update_job_input(bytes, "good", false, false);
    EXPECT_EQ(unverified.public_inputs, in.public_inputs);
    EXPECT_EQ(unverified.circuits, nullptr);
}

TEST(DaemonUpdateJobInput, FourPartitionsOfEightMiBInPartitionOrder) {
    const update_job job("StackedDrgUpdate8MiBV1", "job input 8 MiB");
    ASSERT_EQ(job.partitions.size(), 4u);
    const auto in = daemon::parse_update_job_input(bytes_of(job.encode()), "good", false);
    ASSERT_EQ(in.partitions(), 4u);
    for (unsigned k = 0; k < 4; ++k)
        EXPECT_EQ(in.public_inputs[k], update::generate_public_inputs(job.proof.shape(), k, job.sample.h,
                                                                      job.sample.comm_r_old, job.sample.comm_d_new,
                                                                      job.sample.comm_r_new))
            << "partition " << k;

    // Two partitions swapped: each decodes, but partition 1's proof does not open partition 0's challenges.
    auto swapped = job.partitions;
    std::swap(swapped[0], swapped[1]);
    const auto e = refusal(bytes_of(job.encode(swapped)));
    EXPECT_NE(e.find("job.input: StackedDrgUpdate8MiBV1"), std::string::npos) << e;
    EXPECT_NE(e.find("partition"), std::string::npos) << e;
}

TEST(DaemonUpdateJobInput, ATruncatedPartitionIsRefusedNamingItAndTheByte) {
    const update_job job("StackedDrgUpdate2KiBV1", "truncated");
    auto parts = job.partitions;
    parts[0].resize(parts[0].size() - 100);
    const auto e = refusal(bytes_of(job.encode(parts)));
    EXPECT_NE(e.find("job.input"), std::string::npos) << e;
    EXPECT_NE(e.find("partition 0"), std::string::npos) << e;
    EXPECT_NE(e.find("byte"), std::string::npos) << e;
    // Unverified is not unchecked: the decoder is as strict.
    EXPECT_FALSE(refusal(bytes_of(job.encode(parts)), false).empty());
}

TEST(DaemonUpdateJobInput, AnotherCommDNewIsRefusedAtTheVerifiedRead) {
    const update_job job("StackedDrgUpdate2KiBV1", "comm_d_new");
    const ff::fr_t wrong = job.sample.comm_d_new + ff::fr_t::one();
    const auto bytes = bytes_of(job.encode(job.partitions, &wrong));
    const auto e = refusal(bytes);
    EXPECT_NE(e.find("job.input"), std::string::npos) << e;
    EXPECT_NE(e.find("comm_d_new"), std::string::npos) << e;
    EXPECT_NE(e.find("partition 0"), std::string::npos) << e;
}

TEST(DaemonUpdateJobInput, HeaderFieldsAreCheckedNamingTheirOffset) {
    const update_job job("StackedDrgUpdate2KiBV1", "header");
    const auto good = job.encode();

    EXPECT_NE(refusal(bytes_of("cuzk-post-job 1\n" + good.substr(16))).find("not a SnapDeals job input"),
              std::string::npos);
    auto id = good;
    put_u64_at(id, id_at, 7);
    EXPECT_NE(refusal(bytes_of(id)).find("job.input"), std::string::npos) << refusal(bytes_of(id));
    auto h = good;
    put_u64_at(h, h_at, 10);  // 2 KiB allows only 1
    const auto eh = refusal(bytes_of(h));
    EXPECT_NE(eh.find("h 10"), std::string::npos) << eh;
    EXPECT_NE(eh.find("at byte 26"), std::string::npos) << eh;
    auto not_field = good;
    for (std::size_t i = 0; i < 32; ++i) not_field[comm_d_new_at + i] = static_cast<char>(0xff);
    const auto ef = refusal(bytes_of(not_field));
    EXPECT_NE(ef.find("comm_d_new is not a field element"), std::string::npos) << ef;
    EXPECT_NE(ef.find("at byte 66"), std::string::npos) << ef;
    auto count = good;
    put_u64_at(count, count_at, 2);
    const auto ec = refusal(bytes_of(count));
    EXPECT_NE(ec.find("2 partition proofs"), std::string::npos) << ec;
    EXPECT_NE(ec.find("exactly 1"), std::string::npos) << ec;
    const auto trailing = refusal(bytes_of(good + "x"));
    EXPECT_NE(trailing.find("1 bytes after the last partition proof"), std::string::npos) << trailing;
    const auto cut = refusal(bytes_of(good.substr(0, comm_r_old_at + 5)));
    EXPECT_NE(cut.find("comm_r_old (32 bytes) cut short"), std::string::npos) << cut;
    auto claims = good;
    put_u64_at(claims, count_at + 8, 1u << 30);
    EXPECT_NE(refusal(bytes_of(claims)).find("partition proof 0 claims"), std::string::npos);
}

TEST(DaemonUpdateJobInput, EncodeRefusesWhatTheReaderWould) {
    const update_job job("StackedDrgUpdate2KiBV1", "encode");
    EXPECT_THROW((void)job.encode({job.partitions[0], job.partitions[0]}), input_error);
    EXPECT_THROW((void)daemon::encode_update_job_input(job.proof, 10, {}, {}, {}, {}), input_error);
    daemon::bytes32 big{};
    big.fill(0xff);
    const std::vector<std::string_view> one{job.partitions[0]};
    try {
        (void)daemon::encode_update_job_input(job.proof, job.sample.h, big, {}, {}, one);
        ADD_FAILURE() << "comm_r_old >= r was encoded";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("comm_r_old"), std::string::npos) << e.what();
    }
}
