// A PoSt job input read with and without the native verification of its vanilla proofs: assemblerd verifies
// at submission (a proof that does not hash to its sector's comm_r_last is refused naming it), synthd reads the
// same spooled input unverified and gets the same partition (its public inputs: comm_r and the leaf indices);
// the shape checks hold either way.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/post/registered_post_proof.hpp"
#include "common/post/sample_post.hpp"
#include "common/post/vanilla_bincode.hpp"
#include "common/util/errors.hpp"
#include "daemon/post_job_input.hpp"

using namespace cuzk;

namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

std::string job_input(const post::registered_post_proof& proof, const post::sample_post& sample,
                      std::vector<post::fallback_sector_proof> proofs) {
    std::vector<std::string> encoded;
    for (const auto& p : proofs) {
        const auto b = post::encode_sector_proof(p);
        encoded.emplace_back(b.begin(), b.end());
    }
    return daemon::encode_post_job_input(proof, sample.randomness,
                                         std::vector<std::string_view>(encoded.begin(), encoded.end()));
}

}  // namespace

TEST(DaemonPostJobInput, UnverifiedReadGivesTheVerifiedPartitionAndSkipsOnlyTheHashing) {
    const auto& proof = post::registered_post_proof_by_name("StackedDrgWindow2KiBV1_1");
    const auto sample = post::make_sample_post(proof, "job input", 2);
    const auto good = bytes_of(job_input(proof, sample, sample.vanilla));
    const auto verified = daemon::parse_post_job_input(good, "good", true);
    const auto unverified = daemon::parse_post_job_input(good, "good", true, false);
    EXPECT_EQ(unverified.public_inputs, verified.public_inputs);
    ASSERT_NE(unverified.circuit, nullptr);
    EXPECT_EQ(unverified.circuit->public_inputs(), verified.circuit->public_inputs());

    auto tampered = sample.vanilla;
    tampered[1].sectors[0].inclusion_proofs[3].base_path[0].hashes[2][0] ^= 1;
    const auto bad = bytes_of(job_input(proof, sample, tampered));
    try {
        (void)daemon::parse_post_job_input(bad, "bad", false);
        ADD_FAILURE() << "a vanilla proof that does not verify was accepted";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("vanilla proof 1"), std::string::npos) << e.what();
    }
    EXPECT_EQ(daemon::parse_post_job_input(bad, "bad", false, false).public_inputs, verified.public_inputs);

    // Unverified is not unchecked: sectors out of order are refused all the same.
    auto swapped = sample.vanilla;
    std::swap(swapped[0], swapped[1]);
    EXPECT_THROW((void)daemon::parse_post_job_input(bytes_of(job_input(proof, sample, swapped)), "swapped", false, false),
                 input_error);
}
