// Synthetic PoRep challenges against the vectors hard-coded in rust-fil-proofs'
// challenges.rs test_synth_challenges_against_hardcoded (2^10 nodes, replica_id 55, comm_r 101,
// 21 synthetic challenges, 10 PoRep challenges from rand = [1; 32]), and the partition split.
#include <gtest/gtest.h>

#include "common/porep/synthetic_challenges.hpp"

namespace {

using namespace cuzk;

TEST(SyntheticChallenges, MatchRustFilProofsHardcodedVectors) {
    porep::synthetic_challenges synth(1 << 10, ff::fr_t::from_u64(55), ff::fr_t::from_u64(101), 21);
    const std::vector<uint64_t> expected_synth = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                                  801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    for (uint64_t i = 0; i < expected_synth.size(); ++i) EXPECT_EQ(synth.challenge(i), expected_synth[i]) << i;
    porep::bytes32 rand;
    rand.fill(1);
    const std::vector<uint64_t> expected_porep = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    EXPECT_EQ(synth.partition_challenges(10, rand, 0), expected_porep);
    EXPECT_THROW(synth.challenge(21), std::out_of_range);
}

TEST(SyntheticChallenges, PartitionsSplitOneSequence) {
    auto synth = porep::synthetic_challenges::standard(uint64_t(1) << 30, ff::fr_t::from_u64(7), ff::fr_t::from_u64(9));
    EXPECT_EQ(synth.count(), uint64_t(1) << 18);
    porep::bytes32 rand;
    rand.fill(3);
    auto all = synth.partition_indexes(180, rand, 0);
    std::vector<uint64_t> joined;
    for (unsigned k = 0; k < 10; ++k) {
        auto part = synth.partition_indexes(18, rand, k);
        joined.insert(joined.end(), part.begin(), part.end());
    }
    EXPECT_EQ(all, joined);
}

}  // namespace
