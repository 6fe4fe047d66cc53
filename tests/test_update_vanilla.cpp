// The SnapDeals vanilla proofs as Curio sends them (one bincode PartitionProof per partition): the shapes per
// sector size, the bincode sizes of the reference (32 GiB: 6,484 B per challenge, 561,768 B per partition;
// 64 GiB: 6,644 and 575,528), round trips, every refusal of the strict decoder with its partition, challenge
// and offset, no allocation from a corrupted length, and the native checks on proofs of real small trees.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/merkle/merkle_tree.hpp"
#include "common/update/vanilla_bincode.hpp"
#include "common/update/vanilla_shape.hpp"
#include "common/update/vanilla_verify.hpp"
#include "common/util/errors.hpp"
#include "support/expect_refused.hpp"

// The largest single allocation while |tracking| is set: a corrupted length must be refused before it sizes a
// buffer, so decoding never asks for more than the proof itself needs.
namespace {
std::atomic<bool> tracking{false};
std::atomic<size_t> largest{0};
}  // namespace

// Out of line, so that the compiler does not pair an inlined free() with operator new and warn.
[[gnu::noinline]] void* operator new(size_t n) {
    if (tracking.load(std::memory_order_relaxed)) {
        size_t seen = largest.load(std::memory_order_relaxed);
        while (n > seen && !largest.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
        }
    }
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace {

using namespace cuzk;
using namespace cuzk::update;

constexpr uint64_t KiB_nodes = 1024 / 32, GiB_nodes = (uint64_t(1) << 30) / 32;

domain_t bytes_of(const ff::fr_t& x) {
    domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

domain_t random_domain(std::mt19937_64& rng) { return bytes_of(ff::fr_t::random(rng)); }

// ---- proofs of random values (right shape, not valid): for sizes too large to build trees ---------------

std::vector<c1::path_element> random_path(unsigned arity, unsigned levels, std::mt19937_64& rng) {
    std::vector<c1::path_element> path(levels);
    for (c1::path_element& e : path) {
        for (unsigned h = 0; h + 1 < arity; ++h) e.hashes.push_back(random_domain(rng));
        e.index = rng() % arity;
    }
    return path;
}

merkle_proof random_opening(const bincode::merkle_shape& s, std::mt19937_64& rng) {
    merkle_proof p;
    p.kind = s.kind();
    p.base_path = random_path(s.base_arity, s.base_levels, rng);
    if (s.sub_arity) p.sub_path = random_path(s.sub_arity, 1, rng);
    if (s.top_arity) p.top_path = random_path(s.top_arity, 1, rng);
    p.root = random_domain(rng);
    p.leaf = random_domain(rng);
    return p;
}

partition_proof random_partition_proof(const update_vanilla_shape& shape, uint64_t seed) {
    std::mt19937_64 rng(seed);
    partition_proof p;
    p.comm_c = random_domain(rng);
    for (unsigned i = 0; i < shape.apex_leaves; ++i) p.apex_leafs.push_back(random_domain(rng));
    for (unsigned c = 0; c < shape.challenges; ++c)
        p.challenge_proofs.push_back({random_opening(shape.tree_r, rng), random_opening(shape.tree_d, rng),
                                      random_opening(shape.tree_r, rng)});
    return p;
}

// ---- valid proofs from whole trees (small sizes) ------------------------------------------------------

// Tree levels (leaf up) into the base, sub and top paths of |s|'s proof kind.
merkle_proof opening_of(const bincode::merkle_shape& s, const ff::fr_t& leaf, const ff::fr_t& root,
                        const std::vector<merkle::path_level>& levels) {
    merkle_proof p;
    p.kind = s.kind();
    p.root = bytes_of(root);
    p.leaf = bytes_of(leaf);
    for (size_t l = 0; l < levels.size(); ++l) {
        c1::path_element e;
        for (const ff::fr_t& h : levels[l].siblings) e.hashes.push_back(bytes_of(h));
        e.index = levels[l].index;
        auto& part = l < s.base_levels ? p.base_path : l == s.base_levels ? p.sub_path : p.top_path;
        part.push_back(std::move(e));
    }
    return p;
}

struct sector_trees {
    merkle::merkle_tree d, r_old, r_new;
    ff::fr_t comm_c;
};

std::vector<ff::fr_t> random_leaves(uint64_t n, std::mt19937_64& rng) {
    std::vector<ff::fr_t> v(n);
    for (ff::fr_t& x : v) x = ff::fr_t::random(rng);
    return v;
}

sector_trees trees_of(const update_vanilla_shape& s, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto& r = s.tree_r;
    return {merkle::merkle_tree::sha256_binary(random_leaves(s.sector_nodes, rng)),
            merkle::merkle_tree::poseidon(random_leaves(s.sector_nodes, rng), r.base_arity, r.sub_arity, r.top_arity),
            merkle::merkle_tree::poseidon(random_leaves(s.sector_nodes, rng), r.base_arity, r.sub_arity, r.top_arity),
            ff::fr_t::random(rng)};
}

// Partition |k|'s proof as vanilla.rs makes it: the tree D nodes of its apex run, and per challenge (any node of
// the partition's range here: challenge generation is not this test's) the three openings.
partition_proof valid_partition_proof(const update_vanilla_shape& s, const sector_trees& t, uint64_t k,
                                      uint64_t seed) {
    std::mt19937_64 rng(seed);
    partition_proof p;
    p.comm_c = bytes_of(t.comm_c);
    const unsigned height = s.apex_leaf_height();
    for (uint64_t i = 0; i < s.apex_leaves; ++i) {
        const uint64_t node = (k * s.apex_leaves + i) << height;
        const auto path = t.d.proof(node);
        p.apex_leafs.push_back(bytes_of(
            merkle::root_from_proof(merkle::hasher::sha256, t.d.leaf(node), std::span(path).first(height))));
    }
    const unsigned low_bits = s.challenge_bit_len - s.partition_bit_len;
    for (unsigned c = 0; c < s.challenges; ++c) {
        const uint64_t node = k << low_bits | (rng() & ((uint64_t(1) << low_bits) - 1));
        p.challenge_proofs.push_back({opening_of(s.tree_r, t.r_old.leaf(node), t.r_old.root(), t.r_old.proof(node)),
                                      opening_of(s.tree_d, t.d.leaf(node), t.d.root(), t.d.proof(node)),
                                      opening_of(s.tree_r, t.r_new.leaf(node), t.r_new.root(), t.r_new.proof(node))});
    }
    return p;
}

std::vector<partition_proof> valid_update(const update_vanilla_shape& s, const sector_trees& t) {
    std::vector<partition_proof> out;
    for (uint64_t k = 0; k < s.partitions; ++k) out.push_back(valid_partition_proof(s, t, k, 100 + k));
    return out;
}

// ---- shapes and sizes -------------------------------------------------------------------------------

TEST(UpdateVanillaShape, PublishedSizes) {
    const auto s2k = update_vanilla_shape_of(2 * KiB_nodes);
    EXPECT_EQ(s2k.partitions, 1u);
    EXPECT_EQ(s2k.challenges, 10u);
    EXPECT_EQ(s2k.apex_leaves, 8u);
    EXPECT_EQ(s2k.tree_d, (bincode::merkle_shape{2, 6, 0, 0}));
    EXPECT_EQ(s2k.tree_r, (bincode::merkle_shape{8, 2, 0, 0}));
    EXPECT_EQ(s2k.apex_leaf_height(), 3u);

    const auto s8m = update_vanilla_shape_of(8 * 1024 * KiB_nodes);
    EXPECT_EQ(s8m.partitions, 4u);
    EXPECT_EQ(s8m.challenges, 10u);
    EXPECT_EQ(s8m.apex_leaves, 128u);
    EXPECT_EQ(s8m.tree_r, (bincode::merkle_shape{8, 6, 0, 0}));

    const auto s512m = update_vanilla_shape_of(GiB_nodes / 2);
    EXPECT_EQ(s512m.partitions, 16u);
    EXPECT_EQ(s512m.challenges, 86u);
    EXPECT_EQ(s512m.tree_r, (bincode::merkle_shape{8, 8, 0, 0}));

    const auto s32 = update_vanilla_shape_of(32 * GiB_nodes);
    EXPECT_EQ(s32.challenge_bit_len, 30u);
    EXPECT_EQ(s32.partitions, 16u);
    EXPECT_EQ(s32.partition_bit_len, 4u);
    EXPECT_EQ(s32.challenges, 86u);
    EXPECT_EQ(s32.apex_leaves, 128u);
    EXPECT_EQ(s32.apex_leaf_bit_len, 7u);
    EXPECT_EQ(s32.apex_leaf_height(), 19u);  // reference 3.2: 30 - 4 - 7
    EXPECT_EQ(s32.tree_d, (bincode::merkle_shape{2, 30, 0, 0}));
    EXPECT_EQ(s32.tree_r, (bincode::merkle_shape{8, 9, 8, 0}));
    EXPECT_EQ(s32.tree_r.kind(), c1::merkle_proof_kind::sub);

    const auto s64 = update_vanilla_shape_of(64 * GiB_nodes);
    EXPECT_EQ(s64.apex_leaf_height(), 20u);
    EXPECT_EQ(s64.tree_r, (bincode::merkle_shape{8, 9, 8, 2}));
    EXPECT_EQ(s64.tree_r.kind(), c1::merkle_proof_kind::top);
}

TEST(UpdateVanillaShape, EveryAllowedSizeIsConsistent) {
    for (unsigned log : {5, 6, 7, 8, 9, 10, 18, 19, 24, 30, 31}) {
        const auto s = update_vanilla_shape_of(uint64_t(1) << log);
        EXPECT_EQ(s.tree_r.leaves(), s.sector_nodes) << log;
        EXPECT_EQ(s.tree_d.leaves(), s.sector_nodes) << log;
        EXPECT_EQ(s.challenge_bit_len, unsigned(log));
        EXPECT_EQ(1u << s.partition_bit_len, s.partitions);
        EXPECT_EQ(1u << s.apex_leaf_bit_len, s.apex_leaves);
        EXPECT_GE(s.challenge_bit_len, s.partition_bit_len + s.apex_leaf_bit_len) << log;
    }
    EXPECT_EQ(update_vanilla_shape_of(KiB_nodes).tree_r, (bincode::merkle_shape{8, 1, 4, 0}));
    EXPECT_EQ(update_vanilla_shape_of(32 * KiB_nodes).partitions, 2u);
    EXPECT_EQ(update_vanilla_shape_of(32 * KiB_nodes).tree_r, (bincode::merkle_shape{8, 2, 8, 2}));
}

TEST(UpdateVanillaShape, OtherSizesAreRefused) {
    EXPECT_REFUSED(update_vanilla_shape_of(64 * KiB_nodes), "2048 nodes (65536 bytes)", "no such sector size");
    EXPECT_REFUSED(update_vanilla_shape_of(0), "0 nodes");
    // A size in bytes where nodes are expected.
    EXPECT_REFUSED(update_vanilla_shape_of(uint64_t(32) << 30), "34359738368 nodes");
}

TEST(UpdateVanillaShape, ReferenceSizesAndTheEncoderAgree) {
    const auto s32 = update_vanilla_shape_of(32 * GiB_nodes);
    EXPECT_EQ(s32.tree_r.proof_bytes(), 2484u);
    EXPECT_EQ(s32.challenge_proof_bytes(), 6484u);
    EXPECT_EQ(s32.partition_proof_bytes(), 561768u);
    EXPECT_EQ(encode_partition_proof(random_partition_proof(s32, 1)).size(), 561768u);

    const auto s64 = update_vanilla_shape_of(64 * GiB_nodes);
    EXPECT_EQ(s64.tree_r.proof_bytes(), 2540u);
    EXPECT_EQ(s64.challenge_proof_bytes(), 6644u);
    EXPECT_EQ(s64.partition_proof_bytes(), 575528u);
    EXPECT_EQ(encode_partition_proof(random_partition_proof(s64, 2)).size(), 575528u);

    for (unsigned log : {5, 6, 7, 8, 9, 10, 18, 19, 24}) {
        const auto s = update_vanilla_shape_of(uint64_t(1) << log);
        EXPECT_EQ(encode_partition_proof(random_partition_proof(s, log)).size(), s.partition_proof_bytes()) << log;
    }
}

// ---- bincode -------------------------------------------------------------------------------------------

TEST(UpdateVanillaBincode, LayoutOfA32GiBPartition) {
    const auto s = update_vanilla_shape_of(32 * GiB_nodes);
    const auto p = random_partition_proof(s, 3);
    const auto b = encode_partition_proof(p);
    EXPECT_TRUE(std::equal(p.comm_c.begin(), p.comm_c.end(), b.begin()));
    EXPECT_EQ(b[32], 128);  // apex_leafs length, u64
    EXPECT_EQ(b[33], 0);
    EXPECT_TRUE(std::equal(p.apex_leafs[127].begin(), p.apex_leafs[127].end(), b.begin() + 40 + 127 * 32));
    EXPECT_EQ(b[4136], 86);  // challenge_proofs length
    // Challenge 0 at 4144: proof_r_old (Sub: tag 1, base path of 9 levels of 7 siblings), proof_d_new at
    // 4144 + 2484 (Single: tag 0, root, leaf, path of 30 levels of 1 sibling), proof_r_new at 4144 + 4000.
    EXPECT_EQ(b[4144], 1);
    EXPECT_EQ(b[4148], 9);
    EXPECT_EQ(b[4156], 7);
    const auto& d = p.challenge_proofs[0].proof_d_new;
    EXPECT_EQ(b[6628], 0);
    EXPECT_TRUE(std::equal(d.root.begin(), d.root.end(), b.begin() + 6632));
    EXPECT_TRUE(std::equal(d.leaf.begin(), d.leaf.end(), b.begin() + 6664));
    EXPECT_EQ(b[6696], 30);
    EXPECT_EQ(b[6704], 1);
    EXPECT_EQ(b[6744], d.base_path[0].index);
    EXPECT_EQ(b[8144], 1);
    // The last challenge's proof_r_new ends the partition with its root and leaf.
    const auto& last = p.challenge_proofs[85].proof_r_new;
    EXPECT_TRUE(std::equal(last.leaf.begin(), last.leaf.end(), b.end() - 32));
    EXPECT_TRUE(std::equal(last.root.begin(), last.root.end(), b.end() - 64));
    // 64 GiB: the Top variant.
    const auto b64 = encode_partition_proof(random_partition_proof(update_vanilla_shape_of(64 * GiB_nodes), 4));
    EXPECT_EQ(b64[4144], 2);
}

TEST(UpdateVanillaBincode, RoundTrips) {
    for (uint64_t nodes : {2 * KiB_nodes, 8 * KiB_nodes, 32 * KiB_nodes, 32 * GiB_nodes, 64 * GiB_nodes}) {
        const auto s = update_vanilla_shape_of(nodes);
        const auto p = random_partition_proof(s, nodes % 1000);
        const auto bytes = encode_partition_proof(p);
        const auto back = decode_partition_proof(bytes, s, 0);
        EXPECT_EQ(back, p) << nodes;
        EXPECT_EQ(encode_partition_proof(back), bytes) << nodes;
        EXPECT_NO_THROW(check_partition_shape(back, s, 0));
    }
    // Valid proofs of whole trees too, every partition.
    const auto s = update_vanilla_shape_of(32 * KiB_nodes);
    const auto update = valid_update(s, trees_of(s, 7));
    std::vector<std::vector<uint8_t>> files;
    for (const auto& p : update) files.push_back(encode_partition_proof(p));
    const std::vector<std::span<const uint8_t>> spans(files.begin(), files.end());
    EXPECT_EQ(decode_update_proofs(spans, s), update);
}

class UpdateVanillaRefusal : public ::testing::Test {
protected:
    const update_vanilla_shape shape_ = update_vanilla_shape_of(32 * GiB_nodes);
    const partition_proof proof_ = random_partition_proof(shape_, 1234);
    const std::vector<uint8_t> bytes_ = encode_partition_proof(proof_);

    std::vector<uint8_t> with_u64(size_t at, uint64_t v) const {
        auto b = bytes_;
        for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
        return b;
    }
    std::string decode(const std::vector<uint8_t>& b) const {
        return cuzk::test::input_refusal([&] { decode_partition_proof(b, shape_, 5, "snap.vproof"); });
    }
    // Offsets in a 32 GiB partition: challenge c starts at 4144 + 6484 c; in it proof_r_old (2,484 bytes: tag,
    // base path length, 9 elements of 240 bytes, sub path length, one element, root, leaf), proof_d_new (1,516:
    // tag, root, leaf, path length, 30 elements of 48 bytes), proof_r_new.
    static size_t challenge_at(size_t c) { return 4144 + c * 6484; }
    // Level 9 of the base path: where the sub path's length is.
    static size_t r_old_element_at(size_t c, size_t level) { return challenge_at(c) + 12 + level * 240; }
    static size_t d_new_at(size_t c) { return challenge_at(c) + 2484; }
    static size_t d_new_element_at(size_t c, size_t level) { return d_new_at(c) + 76 + level * 48; }
    static size_t r_new_at(size_t c) { return challenge_at(c) + 4000; }
};

TEST_F(UpdateVanillaRefusal, TruncatedAnywhere) {
    struct cut {
        size_t at;
        std::string field;
    };
    // Where the input ends, and the field (with the byte it starts at) the decoder was reading.
    for (const cut& c : {
             cut{0, "snap.vproof: partition 5, comm_c at byte 0: truncated"},
             cut{35, "partition 5, apex_leafs length at byte 32: truncated"},
             cut{40 + 3 * 32 + 5, "partition 5, apex_leafs[3] at byte 136: truncated"},
             cut{4140, "partition 5, challenge_proofs length at byte 4136"},
             cut{challenge_at(0) + 2, "partition 5, challenge 0, proof_r_old, MerkleProof variant tag at byte 4144"},
             cut{r_old_element_at(1, 9) + 3,
                 "challenge 1, proof_r_old, sub path, path length at byte " + std::to_string(r_old_element_at(1, 9))},
             cut{d_new_element_at(2, 7) + 8 + 20, "partition 5, challenge 2, proof_d_new, base path level 7, hashes[0] "
                                                  "at byte " + std::to_string(d_new_element_at(2, 7) + 8)},
             cut{r_new_at(40) + 1, "challenge 40, proof_r_new, MerkleProof variant tag at byte " +
                                       std::to_string(r_new_at(40))},
             cut{bytes_.size() - 1, "partition 5, challenge 85, proof_r_new, leaf at byte 561736"}}) {
        const auto msg = decode(std::vector<uint8_t>(bytes_.begin(), bytes_.begin() + c.at));
        EXPECT_NE(msg.find(c.field), std::string::npos) << msg;
        EXPECT_NE(msg.find("the input ends at byte " + std::to_string(c.at)), std::string::npos) << msg;
    }
    // A sample of prefixes at 32 GiB (every one would be quadratic in 561,768 bytes).
    for (size_t at = 0; at < bytes_.size(); at += 997) {
        const auto msg = decode(std::vector<uint8_t>(bytes_.begin(), bytes_.begin() + at));
        EXPECT_NE(msg.find("truncated: the input ends at byte " + std::to_string(at)), std::string::npos) << at;
    }
}

TEST(UpdateVanillaTruncation, EveryPrefixOfASmallPartition) {
    // Every prefix of a 2 KiB partition (15,064 bytes) and of a 32 KiB one, where trees R have Top proofs.
    for (uint64_t nodes : {2 * KiB_nodes, 32 * KiB_nodes}) {
        const auto s = update_vanilla_shape_of(nodes);
        const auto bytes = encode_partition_proof(random_partition_proof(s, 5));
        for (size_t at = 0; at < bytes.size(); ++at) {
            const std::span<const uint8_t> prefix(bytes.data(), at);
            const auto msg = cuzk::test::input_refusal([&] { decode_partition_proof(prefix, s, 1); });
            ASSERT_NE(msg.find("partition 1, "), std::string::npos) << at << ": " << msg;
            ASSERT_NE(msg.find("truncated: the input ends at byte " + std::to_string(at)), std::string::npos)
                << at << ": " << msg;
        }
    }
}

TEST_F(UpdateVanillaRefusal, CountsOtherThanTheShapes) {
    EXPECT_REFUSED(decode_partition_proof(with_u64(32, 127), shape_, 5),
                   "partition 5, apex_leafs length at byte 32: 127, expected 128");
    EXPECT_REFUSED(decode_partition_proof(with_u64(4136, 87), shape_, 5),
                   "partition 5, challenge_proofs length at byte 4136: 87, expected 86");
    EXPECT_REFUSED(decode_partition_proof(with_u64(4136, 0), shape_, 5), "0, expected 86");
    // A 32 GiB partition read with the 64 GiB shape: Sub where Top is expected.
    EXPECT_REFUSED(decode_partition_proof(bytes_, update_vanilla_shape_of(64 * GiB_nodes), 5),
                   "partition 5, challenge 0, proof_r_old, MerkleProof variant tag at byte 4144: 1 (Sub), expected 2 "
                   "(Top) for tree R");
    // A 512 MiB partition (the same counts, Single tree R proofs) read as a 32 GiB one.
    const auto s512m = update_vanilla_shape_of(GiB_nodes / 2);
    EXPECT_REFUSED(decode_partition_proof(encode_partition_proof(random_partition_proof(s512m, 6)), shape_, 2),
                   "partition 2, challenge 0, proof_r_old, MerkleProof variant tag at byte 4144: 0 (Single), expected "
                   "1 (Sub)");
}

TEST_F(UpdateVanillaRefusal, WrongPathShapes) {
    EXPECT_REFUSED(decode_partition_proof(with_u64(challenge_at(3) + 4, 10), shape_, 5),
                   "partition 5, challenge 3, proof_r_old, base path, path length at byte " +
                       std::to_string(challenge_at(3) + 4) + ": 10, expected 9");
    EXPECT_REFUSED(decode_partition_proof(with_u64(r_old_element_at(4, 5), 8), shape_, 5),
                   "challenge 4, proof_r_old, base path level 5, hashes length at byte " +
                       std::to_string(r_old_element_at(4, 5)) + ": 8, expected 7");
    EXPECT_REFUSED(decode_partition_proof(with_u64(r_old_element_at(0, 9), 2), shape_, 5),
                   "challenge 0, proof_r_old, sub path, path length at byte " +
                       std::to_string(r_old_element_at(0, 9)) + ": 2, expected 1");
    // Tree D: 30 levels of one sibling, positions 0 or 1.
    EXPECT_REFUSED(decode_partition_proof(with_u64(d_new_at(6) + 68, 31), shape_, 5),
                   "partition 5, challenge 6, proof_d_new, base path, path length at byte " +
                       std::to_string(d_new_at(6) + 68) + ": 31, expected 30");
    EXPECT_REFUSED(decode_partition_proof(with_u64(d_new_element_at(6, 29), 2), shape_, 5),
                   "challenge 6, proof_d_new, base path level 29, hashes length at byte " +
                       std::to_string(d_new_element_at(6, 29)) + ": 2, expected 1");
    EXPECT_REFUSED(decode_partition_proof(with_u64(d_new_element_at(7, 11) + 40, 2), shape_, 5),
                   "challenge 7, proof_d_new, base path level 11, index at byte " +
                       std::to_string(d_new_element_at(7, 11) + 40) + ": 2 is not below the arity 2");
    EXPECT_REFUSED(decode_partition_proof(with_u64(r_old_element_at(8, 2) + 232, 8), shape_, 5),
                   "challenge 8, proof_r_old, base path level 2, index at byte", "8 is not below the arity 8");
}

TEST_F(UpdateVanillaRefusal, WrongVariantTags) {
    auto b = bytes_;
    b[d_new_at(0)] = 1;
    EXPECT_REFUSED(decode_partition_proof(b, shape_, 5),
                   "partition 5, challenge 0, proof_d_new, MerkleProof variant tag at byte 6628: 1 (Sub), expected 0 "
                   "(Single) for tree D");
    b = bytes_;
    b[r_new_at(9)] = 2;
    EXPECT_REFUSED(decode_partition_proof(b, shape_, 5), "challenge 9, proof_r_new, MerkleProof variant tag",
                   "2 (Top), expected 1 (Sub) for tree R");
    b[r_new_at(9)] = 3;
    EXPECT_REFUSED(decode_partition_proof(b, shape_, 5), "3 is no variant");
}

TEST_F(UpdateVanillaRefusal, HugeLengthsAllocateNothing) {
    const struct {
        size_t at;
        std::string message;
    } cases[] = {
        {32, "apex_leafs length at byte 32: 1152921504606846976, expected 128"},
        {4136, "challenge_proofs length at byte 4136: 1152921504606846976, expected 86"},
        {d_new_at(50) + 68, "challenge 50, proof_d_new, base path, path length"},
        {r_old_element_at(85, 3), "challenge 85, proof_r_old, base path level 3, hashes length"},
    };
    for (const auto& c : cases) {
        const auto b = with_u64(c.at, uint64_t(1) << 60);
        largest = 0;
        tracking = true;
        const auto msg = decode(b);
        tracking = false;
        EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
        EXPECT_NE(msg.find("1152921504606846976"), std::string::npos) << msg;
        // The most the decoder holds at once is the proof itself; 2^60 of anything would be far more.
        EXPECT_LT(largest.load(), size_t(1) << 20) << c.at;
    }
}

TEST_F(UpdateVanillaRefusal, TrailingBytes) {
    auto b = bytes_;
    b.push_back(0);
    EXPECT_REFUSED(decode_partition_proof(b, shape_, 5, "p5.bin"),
                   "p5.bin: partition 5, end of the partition proof at byte 561768: 1 trailing bytes");
    b.resize(b.size() + 99);
    EXPECT_REFUSED(decode_partition_proof(b, shape_, 5), "100 trailing bytes");
}

TEST_F(UpdateVanillaRefusal, ValuesAboveTheField) {
    auto b = bytes_;
    std::fill(b.begin(), b.begin() + 32, 0xff);
    EXPECT_REFUSED(decode_partition_proof(b, shape_, 5),
                   "partition 5, comm_c at byte 0: not a canonical field element");
    b = bytes_;
    std::fill(b.begin() + 40 + 64 * 32, b.begin() + 40 + 65 * 32, 0xff);
    EXPECT_REFUSED(decode_partition_proof(b, shape_, 5), "apex_leafs[64] at byte 2088: not a canonical");
    b = bytes_;
    std::fill(b.begin() + d_new_at(3) + 36, b.begin() + d_new_at(3) + 68, 0xff);
    EXPECT_REFUSED(decode_partition_proof(b, shape_, 5),
                   "challenge 3, proof_d_new, leaf at byte " + std::to_string(d_new_at(3) + 36) + ": not a canonical");
    // The in-memory check finds the same.
    auto p = proof_;
    p.challenge_proofs[3].proof_d_new.leaf.fill(0xff);
    EXPECT_REFUSED(check_partition_shape(p, shape_, 5), "partition 5, challenge 3, proof_d_new: leaf", "canonical");
}

TEST(UpdateVanillaShapeCheck, InMemoryProofsOfTheWrongShape) {
    const auto s = update_vanilla_shape_of(32 * GiB_nodes);
    const auto good = random_partition_proof(s, 8);
    auto p = good;
    p.apex_leafs.pop_back();
    EXPECT_REFUSED(check_partition_shape(p, s, 3, "x"), "x: partition 3: 127 apex leaves, expected 128");
    p = good;
    p.challenge_proofs.push_back(p.challenge_proofs[0]);
    EXPECT_REFUSED(check_partition_shape(p, s, 3), "87 challenge proofs, expected 86");
    p = good;
    p.challenge_proofs[4].proof_d_new.base_path.pop_back();
    EXPECT_REFUSED(check_partition_shape(p, s, 3), "challenge 4, proof_d_new: base path of 29 levels, expected 30");
    p = good;
    p.challenge_proofs[5].proof_r_new.kind = c1::merkle_proof_kind::top;
    EXPECT_REFUSED(check_partition_shape(p, s, 3), "challenge 5, proof_r_new: a Top proof, expected Sub");
    p = good;
    p.challenge_proofs[6].proof_r_old.sub_path[0].index = 9;
    EXPECT_REFUSED(check_partition_shape(p, s, 3), "challenge 6, proof_r_old: sub path level 0: index 9");
}

TEST(UpdateVanillaRequest, ExactlyOneProofPerPartition) {
    const auto s = update_vanilla_shape_of(32 * KiB_nodes);  // 2 partitions
    std::vector<std::vector<uint8_t>> files{encode_partition_proof(random_partition_proof(s, 1)),
                                            encode_partition_proof(random_partition_proof(s, 2))};
    auto spans = [](const std::vector<std::vector<uint8_t>>& f) {
        return std::vector<std::span<const uint8_t>>(f.begin(), f.end());
    };
    EXPECT_EQ(decode_update_proofs(spans(files), s).size(), 2u);
    files.push_back(files[0]);
    EXPECT_REFUSED(decode_update_proofs(spans(files), s), "SnapDeals vanilla proofs: 3 partition proofs",
                   "1024 nodes has 2 partitions");
    files.resize(1);
    EXPECT_REFUSED(decode_update_proofs(spans(files), s), "1 partition proofs");
    files.push_back(files[0]);
    files[1].pop_back();  // an error names the partition
    EXPECT_REFUSED(decode_update_proofs(spans(files), s), "SnapDeals vanilla proof: partition 1, challenge 9, "
                                                          "proof_r_new, leaf");
}

// ---- native checks on real small trees -------------------------------------------------------------

class UpdateVanillaVerify : public ::testing::TestWithParam<uint64_t> {
protected:
    const update_vanilla_shape shape_ = update_vanilla_shape_of(GetParam());
    const sector_trees trees_ = trees_of(shape_, 11);
    const std::vector<partition_proof> update_ = valid_update(shape_, trees_);
    const size_t last_ = update_.size() - 1;

    std::string verify(const std::vector<partition_proof>& u) const {
        return cuzk::test::input_refusal([&] { verify_update_proofs(u, shape_); });
    }
};

TEST_P(UpdateVanillaVerify, ProofsOfTheTreesPass) {
    const auto roots = verify_update_proofs(update_, shape_);
    EXPECT_EQ(roots.comm_c, bytes_of(trees_.comm_c));
    EXPECT_EQ(roots.root_r_old, bytes_of(trees_.r_old.root()));
    EXPECT_EQ(roots.root_r_new, bytes_of(trees_.r_new.root()));
    EXPECT_EQ(roots.comm_d_new, bytes_of(trees_.d.root()));
    for (uint64_t k = 0; k < update_.size(); ++k)
        EXPECT_EQ(verify_partition_proof(update_[k], shape_, k), roots) << k;
}

TEST_P(UpdateVanillaVerify, AWrongTreeRSiblingIsCaught) {
    auto u = update_;
    u[last_].challenge_proofs[4].proof_r_old.base_path[1].hashes[3][0] ^= 1;
    const auto msg = verify(u);
    EXPECT_NE(msg.find("partition " + std::to_string(last_) + ", challenge 4, proof_r_old: the path from leaf"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("does not hash to its root"), std::string::npos) << msg;
    u = update_;
    auto& r_new = u[0].challenge_proofs[7].proof_r_new;
    (r_new.sub_path.empty() ? r_new.base_path : r_new.sub_path).back().hashes[0][1] ^= 1;
    EXPECT_REFUSED(verify_update_proofs(u, shape_), "partition 0, challenge 7, proof_r_new: the path from leaf");
}

TEST_P(UpdateVanillaVerify, AWrongTreeDSiblingIsCaught) {
    auto u = update_;
    // Below the apex leaves: the path misses the apex leaf its position selects.
    u[0].challenge_proofs[2].proof_d_new.base_path[0].hashes[0][0] ^= 1;
    EXPECT_REFUSED(verify_update_proofs(u, shape_), "partition 0, challenge 2, proof_d_new: the path from leaf",
                   "at level " + std::to_string(shape_.apex_leaf_height()), "not apex_leafs[");
    // In the apex levels: the circuit would use the apex tree, but the opening itself no longer verifies.
    u = update_;
    u[last_].challenge_proofs[3].proof_d_new.base_path[shape_.apex_leaf_height()].hashes[0][0] ^= 1;
    EXPECT_REFUSED(verify_update_proofs(u, shape_), "challenge 3, proof_d_new: the path from leaf",
                   "does not hash to its root");
    // An apex leaf: the apex tree no longer reaches comm_d_new.
    u = update_;
    u[last_].apex_leafs[1][0] ^= 1;
    EXPECT_REFUSED(verify_update_proofs(u, shape_), "partition " + std::to_string(last_) + ": the apex tree of its");
}

TEST_P(UpdateVanillaVerify, RootsDiffer) {
    auto u = update_;
    u[0].challenge_proofs[5].proof_r_new.root = u[0].challenge_proofs[5].proof_r_old.root;
    EXPECT_REFUSED(verify_update_proofs(u, shape_), "partition 0, challenge 5, proof_r_new: its root",
                   "is not root_r_new");
    u = update_;
    u[last_].comm_c[0] ^= 1;
    if (last_ > 0)
        EXPECT_REFUSED(verify_update_proofs(u, shape_),
                       "partition " + std::to_string(last_) + ": comm_c", "differs from partition 0's");
    // A partition of another update (other trees).
    if (last_ > 0) {
        u = update_;
        u[last_] = valid_partition_proof(shape_, trees_of(shape_, 12), last_, 5);
        EXPECT_REFUSED(verify_update_proofs(u, shape_), "partition " + std::to_string(last_) + ":",
                       "differs from partition 0's");
    }
}

TEST_P(UpdateVanillaVerify, ChallengesOpenOneNodeOfTheirPartition) {
    auto u = update_;
    auto& e = u[0].challenge_proofs[1].proof_r_old.base_path[0];
    e.index = (e.index + 1) % 8;
    EXPECT_REFUSED(verify_update_proofs(u, shape_), "partition 0, challenge 1: proof_r_old opens node",
                   "the three open the challenged node");
    if (last_ > 0) {
        u = update_;
        std::swap(u[0], u[last_]);
        EXPECT_REFUSED(verify_update_proofs(u, shape_), "partition 0",
                       "lies in partition " + std::to_string(last_) + "; partition 0's challenges lie in its 1/" +
                           std::to_string(shape_.partitions));
        EXPECT_REFUSED(verify_partition_proof(u[0], shape_, last_ + 1), "partition " + std::to_string(last_ + 1),
                       "has " + std::to_string(shape_.partitions) + " partitions");
    }
}

// 2 KiB (Single tree R, 1 partition), 8 KiB (Sub, 8-4-0), 32 KiB (Top, 8-8-2, 2 partitions).
INSTANTIATE_TEST_SUITE_P(SmallSectors, UpdateVanillaVerify,
                         ::testing::Values(2 * KiB_nodes, 8 * KiB_nodes, 32 * KiB_nodes));

TEST(UpdateVanillaVerifyPartitionLevels, OnePartitionPathServesAllChallenges) {
    // 32 KiB: 2 partitions, so tree D's top level is a partition level; a challenge whose sibling there differs
    // from challenge 0's (here: a consistent path into a tree whose other half differs) is refused.
    const auto s = update_vanilla_shape_of(32 * KiB_nodes);
    auto u = valid_update(s, trees_of(s, 21));
    auto& top = u[1].challenge_proofs[6].proof_d_new.base_path.back();
    top.hashes[0][2] ^= 1;
    EXPECT_REFUSED(verify_update_proofs(u, s), "partition 1, challenge 6, proof_d_new: level 9 (a partition level)",
                   "one partition path serves all challenges");
}

}  // namespace
