// SnapDeals updates made natively for tests (common/update/sample_update.hpp) and synthetically at any size
// (common/update/sparse_update.hpp), and the encoding check (common/update/vanilla_encoding.hpp): the proofs
// round-trip through the strict bincode codec, pass verify_update_proofs and check_update_encoding; a changed
// leaf, another comm_d_new / comm_r_old / comm_r_new / h, or swapped partitions are refused naming the partition
// and challenge; the periodic trees are the trees of their expanded leaves; the synthetic 32 GiB update has the
// reference sizes (561,768 bytes per partition) and is a valid witness.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/merkle/merkle_tree.hpp"
#include "common/poseidon/poseidon.hpp"
#include "common/update/randomness_hash.hpp"
#include "common/update/sample_update.hpp"
#include "common/update/sparse_update.hpp"
#include "common/update/vanilla_bincode.hpp"
#include "common/update/vanilla_encoding.hpp"
#include "common/update/vanilla_verify.hpp"
#include "common/util/errors.hpp"
#include "support/expect_refused.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::update;

constexpr uint64_t KiB_nodes = 1024 / 32;

c1::domain_t bytes_of(const ff::fr_t& x) {
    c1::domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

update_commitments commitments_of(const sample_update& s) {
    return {s.comm_r_old, s.comm_d_new, s.comm_r_new, s.h};
}

// Encodes every partition, decodes it strictly, and checks the decoded proofs natively; returns the decoded.
std::vector<partition_proof> round_trip_and_check(const sample_update& s) {
    const update_vanilla_shape vshape = update_vanilla_shape_of(s.nodes);
    std::vector<std::vector<uint8_t>> files;
    for (const partition_proof& p : s.partitions) {
        files.push_back(encode_partition_proof(p));
        EXPECT_EQ(files.back().size(), vshape.partition_proof_bytes());
    }
    const std::vector<std::span<const uint8_t>> spans(files.begin(), files.end());
    std::vector<partition_proof> decoded = decode_update_proofs(spans, vshape);
    EXPECT_EQ(decoded, s.partitions);
    const update_roots roots = verify_update_proofs(decoded, vshape);
    EXPECT_EQ(roots.comm_c, bytes_of(s.comm_c));
    EXPECT_EQ(roots.root_r_old, bytes_of(s.root_r_old));
    EXPECT_EQ(roots.root_r_new, bytes_of(s.root_r_new));
    EXPECT_EQ(roots.comm_d_new, bytes_of(s.comm_d_new));
    check_update_encoding(decoded, update_shape_of(s.nodes), commitments_of(s));
    return decoded;
}

// ---- whole trees ------------------------------------------------------------------------------------

// 2 KiB: 1 partition, 8-0-0 (Single); 8 KiB: 1 partition, 8-4-0 (Sub); 32 KiB: 2 partitions, 8-8-2 (Top).
class UpdateSample : public ::testing::TestWithParam<uint64_t> {};

TEST_P(UpdateSample, RoundTripsAndPassesBothChecks) {
    const sample_update s = make_sample_update(GetParam(), "sample");
    const update_shape shape = update_shape_of(GetParam());
    ASSERT_EQ(s.partitions.size(), shape.partition_count);
    EXPECT_EQ(s.h, shape.h_default());
    EXPECT_EQ(s.comm_r_old, poseidon::hash2(s.comm_c, s.root_r_old));
    EXPECT_EQ(s.comm_r_new, poseidon::hash2(s.comm_c, s.root_r_new));
    for (unsigned k = 0; k < s.partitions.size(); ++k) {
        const auto challenges = partition_challenges(shape, s.comm_r_new, k);
        ASSERT_EQ(s.partitions[k].challenge_proofs.size(), challenges.size());
        for (size_t c = 0; c < challenges.size(); ++c)
            EXPECT_EQ(s.partitions[k].challenge_proofs[c].proof_d_new.leaf_index(), challenges[c]);
    }
    round_trip_and_check(s);
}

TEST_P(UpdateSample, DeterministicInTheSeedText) {
    const sample_update a = make_sample_update(GetParam(), "one"), b = make_sample_update(GetParam(), "one");
    const sample_update c = make_sample_update(GetParam(), "two");
    EXPECT_EQ(a.partitions, b.partitions);
    EXPECT_EQ(a.comm_r_new, b.comm_r_new);
    EXPECT_NE(a.comm_r_new, c.comm_r_new);
    EXPECT_NE(a.comm_d_new, c.comm_d_new);
}

TEST_P(UpdateSample, RefusalsNameThePartitionAndChallenge) {
    const sample_update s = make_sample_update(GetParam(), "refusals");
    const update_shape shape = update_shape_of(GetParam());
    const update_vanilla_shape vshape = update_vanilla_shape_of(GetParam());
    const update_commitments pub = commitments_of(s);
    const unsigned last = unsigned(s.partitions.size() - 1);
    const std::string where = "partition " + std::to_string(last) + ", challenge 3";

    // One byte of a leaf_d_new: the encoding no longer holds there, and its tree D path no longer hashes.
    auto u = s.partitions;
    u[last].challenge_proofs[3].proof_d_new.leaf[0] ^= 1;
    EXPECT_REFUSED(check_update_encoding(u, shape, pub), where + ": node", "leaf_r_new",
                   "leaf_r_old + leaf_d_new * rho");
    EXPECT_REFUSED(verify_update_proofs(u, vshape), where + ", proof_d_new: the path from leaf");

    // Another comm_d_new: refused at the first challenge, whose tree D root is the real one.
    update_commitments other = pub;
    other.comm_d_new = ff::fr_t::from_u64(12345);
    EXPECT_REFUSED(check_update_encoding(s.partitions, shape, other), "partition 0, challenge 0, proof_d_new",
                   "is not comm_d_new");
    // Another comm_r_old or comm_r_new: Poseidon(comm_c, root) is not it.
    other = pub;
    other.comm_r_old = ff::fr_t::from_u64(7);
    EXPECT_REFUSED(check_update_encoding(s.partitions, shape, other), "partition 0: Poseidon(comm_c", "root_r_old",
                   "not comm_r_old");
    other = pub;
    other.comm_r_new = ff::fr_t::from_u64(7);
    EXPECT_REFUSED(check_update_encoding(s.partitions, shape, other), "partition 0: Poseidon(comm_c", "root_r_new",
                   "not comm_r_new");
    // One partition alone, and a count other than the shape's.
    check_partition_encoding(s.partitions[last], shape, last, pub);
    EXPECT_REFUSED(check_update_encoding(std::span(s.partitions).first(last), shape, pub),
                   std::to_string(last) + " partition proofs");
    EXPECT_REFUSED(check_update_encoding(s.partitions, shape, {s.comm_r_old, s.comm_d_new, s.comm_r_new, 2}),
                   "h = 2 is not allowed");
}

INSTANTIATE_TEST_SUITE_P(SmallSectors, UpdateSample, ::testing::Values(2 * KiB_nodes, 8 * KiB_nodes, 32 * KiB_nodes));

TEST(UpdateSampleRefusal, SwappedPartitions) {
    const sample_update s = make_sample_update(32 * KiB_nodes, "swap");
    ASSERT_EQ(s.partitions.size(), 2u);
    std::vector<partition_proof> u{s.partitions[1], s.partitions[0]};
    EXPECT_REFUSED(check_update_encoding(u, update_shape_of(32 * KiB_nodes), commitments_of(s)),
                   "partition 0, challenge 0: proof_r_old opens node", "challenge 0 of partition 0");
    EXPECT_REFUSED(verify_update_proofs(u, update_vanilla_shape_of(32 * KiB_nodes)),
                   "partition 0, challenge 0: node", "lies in partition 1");
    // A challenge's openings of another node of the right partition: only the challenge check sees it.
    u = s.partitions;
    std::swap(u[1].challenge_proofs[2], u[1].challenge_proofs[5]);
    update_vanilla_shape vshape = update_vanilla_shape_of(32 * KiB_nodes);
    verify_update_proofs(u, vshape);
    EXPECT_REFUSED(check_update_encoding(u, update_shape_of(32 * KiB_nodes), commitments_of(s)),
                   "partition 1, challenge 2: proof_r_old opens node");
}

// A registered size with the real h values (7..12) and 4 partitions; another h breaks the encoding (rho).
TEST(UpdateSample8MiB, RegisteredSizeWithEveryH) {
    const uint64_t nodes = uint64_t(8) << 15;
    const sample_update s = make_sample_update(nodes, "8MiB", 7);
    EXPECT_EQ(s.h, 7u);
    EXPECT_EQ(s.partitions.size(), 4u);
    round_trip_and_check(s);
    update_commitments other = commitments_of(s);
    other.h = 10;
    EXPECT_REFUSED(check_update_encoding(s.partitions, update_shape_of(nodes), other),
                   "partition 0, challenge 0: node", "h = 10");
}

TEST(UpdateSampleArguments, RefusedSizesAndH) {
    EXPECT_REFUSED(make_sample_update(2 * KiB_nodes, "x", 2), "h = 2 is not allowed", "allowed: 1 (default 1)");
    EXPECT_REFUSED(make_sample_update(uint64_t(1) << 18, "x", 13), "allowed: 7, 8, 9, 10, 11, 12 (default 10)");
    EXPECT_REFUSED(make_sample_update(3 * KiB_nodes, "x"), "no SnapDeals");
    EXPECT_THROW(make_sample_update(uint64_t(1) << 24, "x"), std::invalid_argument);
}

// ---- periodic trees and the synthetic update ---------------------------------------------------------

TEST(UpdatePeriodicTree, IsTheTreeOfItsExpandedLeaves) {
    std::mt19937_64 rng(3);
    const uint64_t leaves = 1024, run = 128, period = 16;
    std::vector<ff::fr_t> pattern(leaves / run * period);
    for (ff::fr_t& x : pattern) x = ff::fr_t::random(rng);
    std::vector<ff::fr_t> expanded(leaves);
    for (uint64_t i = 0; i < leaves; ++i) expanded[i] = pattern[i / run * period + i % period];

    const periodic_tree r(merkle::hasher::poseidon, {8, 8, 8, 2}, leaves, run, period, pattern);
    const merkle::merkle_tree full_r = merkle::merkle_tree::poseidon(expanded, 8, 8, 2);
    const periodic_tree d(merkle::hasher::sha256, std::vector<unsigned>(10, 2), leaves, run, period, pattern);
    const merkle::merkle_tree full_d = merkle::merkle_tree::sha256_binary(expanded);
    EXPECT_EQ(r.root(), full_r.root());
    EXPECT_EQ(d.root(), full_d.root());
    for (uint64_t i : {0u, 1u, 15u, 16u, 127u, 128u, 300u, 511u, 512u, 1023u}) {
        EXPECT_EQ(r.leaf(i), expanded[i]);
        const auto pr = r.proof(i), fr = full_r.proof(i);
        const auto pd = d.proof(i), fd = full_d.proof(i);
        ASSERT_EQ(pr.size(), fr.size());
        for (size_t l = 0; l < pr.size(); ++l) {
            EXPECT_EQ(pr[l].index, fr[l].index);
            EXPECT_EQ(pr[l].siblings, fr[l].siblings) << "leaf " << i << " level " << l;
        }
        ASSERT_EQ(pd.size(), fd.size());
        for (size_t l = 0; l < pd.size(); ++l) EXPECT_EQ(pd[l].siblings, fd[l].siblings) << "leaf " << i;
    }
    EXPECT_THROW(periodic_tree(merkle::hasher::sha256, {2, 2}, 4, 2, 4, std::vector<ff::fr_t>(8)),
                 std::invalid_argument);
}

TEST(UpdateSynthetic, SmallSizesAreValid) {
    for (uint64_t nodes : {2 * KiB_nodes, 8 * KiB_nodes, 32 * KiB_nodes, uint64_t(1) << 18}) {
        const sample_update s = make_synthetic_update(nodes, "synthetic");
        EXPECT_EQ(s.partitions.size(), update_shape_of(nodes).partition_count) << nodes;
        round_trip_and_check(s);
    }
}

// The size Curio sends most: 16 partitions of 561,768 bytes, decoded strictly, and a valid witness.
TEST(UpdateSynthetic, ThirtyTwoGiBHasTheReferenceSizesAndIsValid) {
    const uint64_t nodes = uint64_t(1) << 30;
    const sample_update s = make_synthetic_update(nodes, "32GiB");
    ASSERT_EQ(s.partitions.size(), 16u);
    EXPECT_EQ(s.h, 10u);
    EXPECT_EQ(update_vanilla_shape_of(nodes).partition_proof_bytes(), 561768u);
    EXPECT_EQ(encode_partition_proof(s.partitions[0]).size(), 561768u);
    const auto decoded = round_trip_and_check(s);
    EXPECT_EQ(decoded[15].challenge_proofs.size(), 86u);
    EXPECT_EQ(decoded[15].apex_leafs.size(), 128u);
    // Another h is the same size's update too.
    const sample_update h12 = make_synthetic_update(nodes, "32GiB", 12);
    EXPECT_NE(h12.comm_r_new, s.comm_r_new);
    check_update_encoding(h12.partitions, update_shape_of(nodes), commitments_of(h12));
}

}  // namespace
