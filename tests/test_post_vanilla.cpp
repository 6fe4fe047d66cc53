// The vanilla proofs of fallback PoSt as Curio sends them: the challenged leaves against node's SHA-256
// (tests/oracle/gen_post_challenges.mjs), the bincode sizes of the reference, round trips, every refusal of
// the strict decoder with its offset, the order and count rules of a request, native verification of proofs
// built from a sealed 2 KiB sector, and `cuzk seal-test --post-randomness` (several sectors, synthetic 32 GiB).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/porep/registered_proof.hpp"
#include "common/porep/sample_sector.hpp"
#include "common/post/challenges.hpp"
#include "common/post/vanilla_bincode.hpp"
#include "common/post/vanilla_generate.hpp"
#include "common/post/vanilla_shape.hpp"
#include "common/post/vanilla_verify.hpp"
#include "common/util/errors.hpp"
#include "support/expect_refused.hpp"
#include "support/oracle_data.hpp"
#include "support/run_command.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::post;
namespace fs = std::filesystem;

constexpr uint64_t KiB = 1024, GiB = uint64_t(1) << 30;

c1::domain_t domain_of_hex(const std::string& hex) {
    const auto b = test::unhex(hex);
    c1::domain_t d{};
    std::copy(b.begin(), b.end(), d.begin());
    return d;
}

graph::api_version version_of(const std::string& v) {
    return v == "1.2.0" ? graph::api_version::v1_2 : v == "1.1.0" ? graph::api_version::v1_1 : graph::api_version::v1_0;
}

c1::domain_t test_randomness(uint8_t seed) {
    c1::domain_t r{};
    for (size_t i = 0; i < r.size(); ++i) r[i] = uint8_t(seed * 31 + i * 7);
    r[31] &= 0x3f;
    return r;
}

fallback_sector_proof synthetic(const vanilla_shape& shape, uint64_t sector_id, uint64_t seed = 1) {
    std::mt19937_64 rng(seed);
    const auto leaves = sector_challenges(graph::api_version::v1_2, test_randomness(uint8_t(seed)), sector_id, 0,
                                          shape.challenges, shape.leaves);
    return make_synthetic_sector_proof(shape, sector_id, leaves, rng);
}

// ---- challenges --------------------------------------------------------------------------------

TEST(PostChallenges, LeavesMatchNodeSha256) {
    const auto& doc = test::oracle_json("post_challenges.json");
    ASSERT_GE(doc["leaf"].size(), 40u);
    for (const auto& c : doc["leaf"]) {
        const uint64_t got =
            leaf_challenge(domain_of_hex(c["randomness"]), std::stoull(c["sector_id"].get<std::string>()),
                           std::stoull(c["challenge_index"].get<std::string>()),
                           std::stoull(c["leaves"].get<std::string>()));
        EXPECT_EQ(got, std::stoull(c["leaf"].get<std::string>())) << c.dump();
    }
}

TEST(PostChallenges, SectorsMatchNodeUnderEachApiVersion) {
    const auto& doc = test::oracle_json("post_challenges.json");
    ASSERT_GE(doc["sector"].size(), 7u);
    for (const auto& c : doc["sector"]) {
        auto number = [&c](const char* key) { return std::stoull(c[key].get<std::string>()); };
        const auto got = sector_challenges(version_of(c["api_version"]), domain_of_hex(c["randomness"]),
                                           number("sector_id"), number("sector_index"), number("challenge_count"),
                                           number("leaves"));
        std::vector<uint64_t> want;
        for (const auto& l : c["challenged_leaves"]) want.push_back(std::stoull(l.get<std::string>()));
        EXPECT_EQ(got, want) << c["api_version"] << " sector index " << c["sector_index"];
    }
}

TEST(PostChallenges, IndexRulePerApiVersion) {
    EXPECT_EQ(challenge_index(graph::api_version::v1_2, 5, 10, 3), 3u);
    EXPECT_EQ(challenge_index(graph::api_version::v1_1, 5, 10, 3), 53u);
    EXPECT_EQ(challenge_index(graph::api_version::v1_0, 5, 10, 3), 53u);
    // WinningPoSt: one sector at index 0, the same under either rule.
    EXPECT_EQ(challenge_index(graph::api_version::v1_0, 0, 66, 65), 65u);
}

TEST(PostChallenges, RandomnessMustBeCanonical) {
    EXPECT_NO_THROW(check_randomness(test_randomness(3), "--randomness"));
    // r itself, little-endian, and all ones.
    const auto r = domain_of_hex("01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73");
    EXPECT_REFUSED(check_randomness(r, "--randomness"), "--randomness", "not a canonical field element");
    c1::domain_t ones;
    ones.fill(0xff);
    EXPECT_REFUSED(check_randomness(ones, "randomness"), "canonical");
    auto below = r;
    below[0] = 0;  // r - 1
    EXPECT_NO_THROW(check_randomness(below, "--randomness"));
}

// ---- shapes and sizes ----------------------------------------------------------------------------

TEST(PostVanillaShape, TreeShapesPerSectorSize) {
    const auto s2k = vanilla_shape_of(2 * KiB, WINDOW_POST_CHALLENGES);
    EXPECT_EQ(s2k.leaves, 64u);
    EXPECT_EQ(s2k.base_levels, 2u);
    EXPECT_EQ(s2k.kind(), c1::merkle_proof_kind::single);
    const auto s32 = vanilla_shape_of(32 * GiB, WINDOW_POST_CHALLENGES);
    EXPECT_EQ(s32.leaves, uint64_t(1) << 30);
    EXPECT_EQ(s32.base_levels, 9u);
    EXPECT_EQ(s32.sub_arity, 8u);
    EXPECT_EQ(s32.top_arity, 0u);
    EXPECT_EQ(s32.kind(), c1::merkle_proof_kind::sub);
    const auto s64 = vanilla_shape_of(64 * GiB, WINNING_POST_CHALLENGES);
    EXPECT_EQ(s64.top_arity, 2u);
    EXPECT_EQ(s64.kind(), c1::merkle_proof_kind::top);
    EXPECT_REFUSED(vanilla_shape_of(4 * KiB, 10), "4096 bytes");
}

TEST(PostVanillaShape, ReferenceSizesAndTheEncoderAgree) {
    const auto window = vanilla_shape_of(32 * GiB, WINDOW_POST_CHALLENGES);
    const auto winning = vanilla_shape_of(32 * GiB, WINNING_POST_CHALLENGES);
    EXPECT_EQ(window.inclusion_proof_bytes(), 2484u);
    EXPECT_EQ(window.sector_proof_bytes(), 24960u);
    EXPECT_EQ(winning.sector_proof_bytes(), 164064u);
    EXPECT_EQ(vanilla_shape_of(64 * GiB, 10).inclusion_proof_bytes(), 2540u);

    EXPECT_EQ(encode_sector_proof(synthetic(window, 9)).size(), 24960u);
    EXPECT_EQ(encode_sector_proof(synthetic(winning, 9)).size(), 164064u);
    for (uint64_t size : {2 * KiB, 8 * KiB * KiB, 64 * GiB})
        for (unsigned c : {WINDOW_POST_CHALLENGES, WINNING_POST_CHALLENGES}) {
            const auto shape = vanilla_shape_of(size, c);
            EXPECT_EQ(encode_sector_proof(synthetic(shape, 4)).size(), shape.sector_proof_bytes()) << size;
        }
}

// ---- bincode ---------------------------------------------------------------------------------------

TEST(PostVanillaBincode, LayoutOfA32GiBWindowProof) {
    const auto shape = vanilla_shape_of(32 * GiB, WINDOW_POST_CHALLENGES);
    const auto p = synthetic(shape, 0x0102030405060708ull);
    const auto b = encode_sector_proof(p);
    EXPECT_EQ(b[0], 0x08);  // sector_id, little-endian
    EXPECT_EQ(b[7], 0x01);
    EXPECT_TRUE(std::equal(p.comm_r.begin(), p.comm_r.end(), b.begin() + 8));
    EXPECT_EQ(b[40], 1);   // vanilla_proof.sectors length (u64)
    EXPECT_EQ(b[48], 10);  // inclusion_proofs length
    EXPECT_EQ(b[56], 1);   // MerkleProof tag u32: Sub
    EXPECT_EQ(b[60], 9);   // base_proof path length
    EXPECT_EQ(b[68], 7);   // first path element: 7 siblings
    const auto& first = p.sectors[0].inclusion_proofs[0];
    EXPECT_EQ(b[300], first.base_path[0].index);
    // Sub: base path, sub path, then root and leaf at the end of the 2,484 bytes.
    EXPECT_TRUE(std::equal(first.root.begin(), first.root.end(), b.begin() + 56 + 2484 - 64));
    EXPECT_TRUE(std::equal(first.leaf.begin(), first.leaf.end(), b.begin() + 56 + 2484 - 32));
    const auto& sp = p.sectors[0];
    EXPECT_TRUE(std::equal(sp.comm_r_last.begin(), sp.comm_r_last.end(), b.end() - 32));
    EXPECT_TRUE(std::equal(sp.comm_c.begin(), sp.comm_c.end(), b.end() - 64));
}

TEST(PostVanillaBincode, RoundTripsEveryShape) {
    for (uint64_t size : {2 * KiB, 32 * GiB, 64 * GiB})
        for (unsigned c : {WINDOW_POST_CHALLENGES, WINNING_POST_CHALLENGES}) {
            const auto shape = vanilla_shape_of(size, c);
            const auto p = synthetic(shape, 77 + size % 1000);
            const auto bytes = encode_sector_proof(p);
            const auto back = decode_sector_proof(bytes, shape);
            EXPECT_EQ(back, p) << size << " " << c;
            EXPECT_EQ(encode_sector_proof(back), bytes);
        }
}

class PostVanillaRefusal : public ::testing::Test {
protected:
    const vanilla_shape shape_ = vanilla_shape_of(32 * GiB, WINDOW_POST_CHALLENGES);
    const fallback_sector_proof proof_ = synthetic(shape_, 1234);
    const std::vector<uint8_t> bytes_ = encode_sector_proof(proof_);

    std::vector<uint8_t> with_u64(size_t at, uint64_t v) const {
        auto b = bytes_;
        for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
        return b;
    }
    std::string decode(const std::vector<uint8_t>& b) const {
        return cuzk::test::input_refusal([&] { decode_sector_proof(b, shape_, "window.vanilla"); });
    }
    // Offsets: an inclusion proof starts at 56 + n * 2484; in it, the tag (4 bytes), the base path length (8),
    // then 240-byte path elements (length 8, 7 siblings, index 8).
    static size_t proof_at(size_t n) { return 56 + n * 2484; }
    static size_t base_element_at(size_t n, size_t level) { return proof_at(n) + 12 + level * 240; }
};

TEST_F(PostVanillaRefusal, TruncatedAnywhere) {
    struct cut {
        size_t at;
        const char* field;
    };
    // Where the input ends, and the field (with the byte it starts at) the decoder was reading.
    for (const cut& c : {cut{0, "window.vanilla: sector_id at byte 0: truncated"},
                         cut{5, "sector_id at byte 0: truncated: the input ends at byte 5"},
                         cut{8, "sector 1234, comm_r at byte 8: truncated"},
                         cut{45, "vanilla_proof.sectors length at byte 40: truncated"},
                         cut{50, "inclusion_proofs length at byte 48"},
                         cut{58, "inclusion proof 0, MerkleProof variant tag at byte 56"},
                         cut{100, "inclusion proof 0, base path level 0, hashes[0] at byte 76"},
                         cut{base_element_at(3, 8) + 240 + 3, "inclusion proof 3, sub path, path length at byte"},
                         cut{bytes_.size() - 1, "sector 1234, comm_r_last at byte 24928"}}) {
        const auto b = std::vector<uint8_t>(bytes_.begin(), bytes_.begin() + c.at);
        const auto msg = decode(b);
        EXPECT_NE(msg.find(c.field), std::string::npos) << msg;
        EXPECT_NE(msg.find("the input ends at byte " + std::to_string(c.at)), std::string::npos) << msg;
    }
    // Every prefix is refused, none crashes.
    for (size_t at = 0; at < bytes_.size(); at += 97) {
        const auto msg = decode(std::vector<uint8_t>(bytes_.begin(), bytes_.begin() + at));
        EXPECT_NE(msg.find("truncated"), std::string::npos) << at;
    }
}

TEST_F(PostVanillaRefusal, WrongEnumTag) {
    auto b = bytes_;
    b[proof_at(2)] = 0;
    EXPECT_REFUSED(decode_sector_proof(b, shape_),
                   "sector 1234, inclusion proof 2, MerkleProof variant tag at byte 5024: 0 (Single), expected 1 "
                   "(Sub)");
    b[proof_at(2)] = 7;
    EXPECT_REFUSED(decode_sector_proof(b, shape_), "variant tag at byte 5024: 7 is no variant");
    b[proof_at(2)] = 1;
    b[proof_at(2) + 3] = 1;  // 2^24 + 1
    EXPECT_REFUSED(decode_sector_proof(b, shape_), "16777217 is no variant");
}

TEST_F(PostVanillaRefusal, WrongPathShape) {
    EXPECT_REFUSED(decode_sector_proof(with_u64(proof_at(0) + 4, 8), shape_),
                   "inclusion proof 0, base path, path length at byte 60: 8, expected 9");
    EXPECT_REFUSED(decode_sector_proof(with_u64(base_element_at(4, 5), 8), shape_),
                   "inclusion proof 4, base path level 5, hashes length at byte 11204: 8, expected 7");
    // The sub path: one level.
    EXPECT_REFUSED(decode_sector_proof(with_u64(base_element_at(0, 9), 2), shape_),
                   "inclusion proof 0, sub path, path length at byte 2228: 2, expected 1");
    // A length near 2^64 is refused before anything is allocated.
    EXPECT_REFUSED(decode_sector_proof(with_u64(base_element_at(0, 0), ~uint64_t(0)), shape_),
                   "hashes length at byte 68: 18446744073709551615, expected 7");
}

TEST_F(PostVanillaRefusal, IndexNotBelowArity) {
    EXPECT_REFUSED(decode_sector_proof(with_u64(base_element_at(0, 0) + 232, 8), shape_),
                   "sector 1234, inclusion proof 0, base path level 0, index at byte 300: 8 is not below the arity 8");
    EXPECT_REFUSED(decode_sector_proof(with_u64(base_element_at(7, 9) + 8 + 232, 1ull << 40), shape_),
                   "inclusion proof 7, sub path level 0, index at byte", "1099511627776 is not below the arity 8");
}

TEST_F(PostVanillaRefusal, CountsOtherThanTheRegisteredProofs) {
    EXPECT_REFUSED(decode_sector_proof(with_u64(48, 11), shape_),
                   "inclusion_proofs length at byte 48: 11, expected 10");
    EXPECT_REFUSED(decode_sector_proof(with_u64(48, 1ull << 62), shape_), "4611686018427387904, expected 10");
    EXPECT_REFUSED(decode_sector_proof(with_u64(40, 2), shape_),
                   "vanilla_proof.sectors length at byte 40: 2, expected 1");
    EXPECT_REFUSED(decode_sector_proof(with_u64(40, 0), shape_), "0, expected 1");
    // A Window proof where a Winning one is expected: 10 inclusion proofs, not 66.
    EXPECT_REFUSED(decode_sector_proof(bytes_, vanilla_shape_of(32 * GiB, WINNING_POST_CHALLENGES)),
                   "inclusion_proofs length at byte 48: 10, expected 66");
    // A 32 GiB proof read as a 64 GiB one: Sub where Top is expected.
    EXPECT_REFUSED(decode_sector_proof(bytes_, vanilla_shape_of(64 * GiB, WINDOW_POST_CHALLENGES)),
                   "1 (Sub), expected 2 (Top)");
}

TEST_F(PostVanillaRefusal, TrailingBytes) {
    auto b = bytes_;
    b.push_back(0);
    EXPECT_REFUSED(decode_sector_proof(b, shape_, "w.bin"),
                   "w.bin: sector 1234, end of the proof at byte 24960: 1 trailing bytes");
    b.resize(b.size() + 99);
    EXPECT_REFUSED(decode_sector_proof(b, shape_), "100 trailing bytes");
}

TEST_F(PostVanillaRefusal, ValuesAboveTheField) {
    auto b = bytes_;
    std::fill(b.begin() + 8, b.begin() + 40, 0xff);
    EXPECT_REFUSED(decode_sector_proof(b, shape_), "sector 1234, comm_r at byte 8: not a canonical field element");
    b = bytes_;
    std::fill(b.begin() + base_element_at(1, 2) + 8 + 32, b.begin() + base_element_at(1, 2) + 8 + 64, 0xff);
    EXPECT_REFUSED(decode_sector_proof(b, shape_), "inclusion proof 1, base path level 2, hashes[1] at byte 3072");
}

TEST(PostVanillaRequest, WindowSectorsAscendingAndBounded) {
    const auto shape = vanilla_shape_of(2 * KiB, WINDOW_POST_CHALLENGES);
    std::vector<std::vector<uint8_t>> files;
    for (uint64_t id : {3, 9, 12}) files.push_back(encode_sector_proof(synthetic(shape, id)));
    auto spans = [](const std::vector<std::vector<uint8_t>>& f) {
        return std::vector<std::span<const uint8_t>>(f.begin(), f.end());
    };
    const auto ok = decode_window_proofs(spans(files), shape, 3);
    ASSERT_EQ(ok.size(), 3u);
    EXPECT_EQ(ok[2].sector_id, 12u);

    EXPECT_REFUSED(decode_window_proofs(spans(files), shape, 2), "3 sectors, more than the 2 of one partition");
    EXPECT_REFUSED(decode_window_proofs({}, shape, 2), "none");
    std::swap(files[1], files[2]);
    EXPECT_REFUSED(decode_window_proofs(spans(files), shape, 3),
                   "WindowPoSt vanilla proofs 1 and 2: sector 9 after sector 12", "strictly ascending");
    files[2] = files[1];
    EXPECT_REFUSED(decode_window_proofs(spans(files), shape, 3), "proofs 1 and 2: sector 12 twice");
    // A decoding error names the proof's position.
    files[1].pop_back();
    EXPECT_REFUSED(decode_window_proofs(spans(files), shape, 3), "WindowPoSt vanilla proof 1: sector 12, comm_r_last");
    EXPECT_REFUSED(check_window_order(std::vector<fallback_sector_proof>{ok[1], ok[0]}), "sector 3 after sector 9");
}

TEST(PostVanillaRequest, WinningIsExactlyOneSector) {
    const auto shape = vanilla_shape_of(2 * KiB, WINNING_POST_CHALLENGES);
    const auto a = encode_sector_proof(synthetic(shape, 5)), b = encode_sector_proof(synthetic(shape, 6));
    const std::vector<std::span<const uint8_t>> one{a}, two{a, b};
    EXPECT_EQ(decode_winning_proof(one, shape).sector_id, 5u);
    EXPECT_REFUSED(decode_winning_proof(two, shape), "WinningPoSt vanilla proofs: 2 sectors", "exactly one");
    EXPECT_REFUSED(decode_winning_proof({}, shape), "0 sectors");
}

// ---- native verification on a sealed 2 KiB sector -------------------------------------------------

class PostVanillaVerify : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        sample_ = new porep::sample_sector(
            porep::make_sample_sector(porep::registered_proof_by_name("StackedDrg2KiBV1_1"), "post vanilla"));
    }
    static void TearDownTestSuite() { delete sample_; }

    std::vector<uint64_t> leaves(const vanilla_shape& shape, graph::api_version v, uint64_t index = 0,
                                 uint8_t seed = 1) const {
        return sector_challenges(v, test_randomness(seed), sample_->sector_id, index, shape.challenges, shape.leaves);
    }

    static inline porep::sample_sector* sample_ = nullptr;
    const vanilla_shape window_ = vanilla_shape_of(2 * KiB, WINDOW_POST_CHALLENGES);
    const vanilla_shape winning_ = vanilla_shape_of(2 * KiB, WINNING_POST_CHALLENGES);
};

TEST_F(PostVanillaVerify, GeneratedProofsVerifyAndRoundTrip) {
    for (const auto* shape : {&window_, &winning_}) {
        const auto l = leaves(*shape, graph::api_version::v1_2);
        const auto p = make_sector_proof(sample_->sector, *shape, sample_->sector_id, l);
        EXPECT_NO_THROW(verify_sector_proof(p, *shape, l));
        const auto bytes = encode_sector_proof(p);
        EXPECT_EQ(bytes.size(), shape->sector_proof_bytes());
        EXPECT_EQ(decode_sector_proof(bytes, *shape), p);
        for (size_t n = 0; n < l.size(); ++n) EXPECT_EQ(p.sectors[0].inclusion_proofs[n].leaf_index(), l[n]);
    }
    // Under API 1.0.0 the sector's position changes its challenges.
    const auto l5 = leaves(window_, graph::api_version::v1_0, 5);
    EXPECT_NE(l5, leaves(window_, graph::api_version::v1_0, 0));
    const auto p5 = make_sector_proof(sample_->sector, window_, sample_->sector_id, l5);
    EXPECT_NO_THROW(verify_sector_proof(p5, window_, l5));
}

TEST_F(PostVanillaVerify, FlippedSiblingIsRefusedNamingSectorAndChallenge) {
    const auto l = leaves(window_, graph::api_version::v1_2);
    auto p = make_sector_proof(sample_->sector, window_, sample_->sector_id, l);
    p.sectors[0].inclusion_proofs[4].base_path[1].hashes[3][0] ^= 1;
    const std::string sector = "sector " + std::to_string(sample_->sector_id);
    EXPECT_REFUSED(verify_sector_proof(p, window_, l, "w.vanilla"), "w.vanilla: " + sector,
                   "inclusion proof 4 (challenged leaf " + std::to_string(l[4]) + ")",
                   "does not hash to comm_r_last");
}

TEST_F(PostVanillaVerify, AnotherCommRIsRefused) {
    const auto l = leaves(winning_, graph::api_version::v1_0);
    auto p = make_sector_proof(sample_->sector, winning_, sample_->sector_id, l);
    p.comm_r[0] ^= 1;
    EXPECT_REFUSED(verify_sector_proof(p, winning_, l), "comm_r", "is not Poseidon(comm_c");
    // Another sector's comm_c and comm_r_last with this comm_r: the same refusal.
    auto q = make_sector_proof(sample_->sector, winning_, sample_->sector_id, l);
    q.sectors[0].comm_c = synthetic(winning_, 1).sectors[0].comm_c;
    EXPECT_REFUSED(verify_sector_proof(q, winning_, l), "is not Poseidon(comm_c");
}

TEST_F(PostVanillaVerify, OtherRandomnessRootOrLeafIsRefused) {
    const auto l = leaves(window_, graph::api_version::v1_2);
    const auto p = make_sector_proof(sample_->sector, window_, sample_->sector_id, l);
    const auto other = leaves(window_, graph::api_version::v1_2, 0, 2);
    size_t first_diff = 0;
    while (first_diff < l.size() && l[first_diff] == other[first_diff]) ++first_diff;
    ASSERT_LT(first_diff, l.size());
    EXPECT_REFUSED(verify_sector_proof(p, window_, other),
                   "inclusion proof " + std::to_string(first_diff),
                   "it opens leaf " + std::to_string(l[first_diff]));
    auto q = p;
    q.sectors[0].inclusion_proofs[9].root[3] ^= 1;
    EXPECT_REFUSED(verify_sector_proof(q, window_, l), "inclusion proof 9", "is not comm_r_last");
    q = p;
    q.sectors[0].inclusion_proofs[0].leaf[0] ^= 1;
    EXPECT_REFUSED(verify_sector_proof(q, window_, l), "inclusion proof 0", "the path from leaf");
    EXPECT_REFUSED(verify_sector_proof(p, window_, std::span(l).first(9)), "10 inclusion proofs for 9 challenges");
}

TEST_F(PostVanillaVerify, ShapeIsCheckedForProofsInMemory) {
    const auto l = leaves(window_, graph::api_version::v1_2);
    auto p = make_sector_proof(sample_->sector, window_, sample_->sector_id, l);
    p.sectors[0].inclusion_proofs[2].base_path[0].index = 8;
    EXPECT_REFUSED(verify_sector_proof(p, window_, l), "inclusion proof 2: base path level 0: index 8 is not below");
    p = make_sector_proof(sample_->sector, window_, sample_->sector_id, l);
    p.sectors[0].inclusion_proofs[1].base_path.pop_back();
    EXPECT_REFUSED(verify_sector_proof(p, window_, l), "inclusion proof 1: base path of 1 levels, expected 2");
    p = make_sector_proof(sample_->sector, window_, sample_->sector_id, l);
    p.sectors.push_back(p.sectors[0]);
    EXPECT_REFUSED(verify_sector_proof(p, window_, l), "vanilla_proof.sectors holds 2 entries");
}

// A synthetic 32 GiB (and 64 GiB) vanilla proof opens a sparse tree R: well shaped, the challenged leaves at
// their positions, and every path hashes to comm_r_last: it verifies natively.
TEST(PostVanillaSynthetic, OpensASparseTreeAndVerifies) {
    for (const uint64_t size : {32 * GiB, 64 * GiB}) {
        for (const unsigned challenges : {WINDOW_POST_CHALLENGES, WINNING_POST_CHALLENGES}) {
            const auto shape = vanilla_shape_of(size, challenges);
            const auto r = test_randomness(8);
            const auto l = sector_challenges(graph::api_version::v1_2, r, 42, 0, shape.challenges, shape.leaves);
            std::mt19937_64 rng(8);
            const auto p = make_synthetic_sector_proof(shape, 42, l, rng);
            EXPECT_NO_THROW(check_shape(p, shape, "synthetic"));
            for (size_t n = 0; n < l.size(); ++n) EXPECT_EQ(p.sectors[0].inclusion_proofs[n].leaf_index(), l[n]);
            EXPECT_NO_THROW(verify_sector_proof(p, shape, l)) << size << " " << challenges;
            // Another leaf's value breaks its path: the verifier still checks.
            auto q = p;
            q.sectors[0].inclusion_proofs[3].leaf[0] ^= 1;
            EXPECT_REFUSED(verify_sector_proof(q, shape, l), "inclusion proof 3", "the path from leaf");
        }
    }
    const auto shape = vanilla_shape_of(32 * GiB, WINDOW_POST_CHALLENGES);
    const std::vector<uint64_t> beyond{shape.leaves};
    std::mt19937_64 rng(1);
    EXPECT_THROW(sparse_tree_r(shape, beyond, rng), std::invalid_argument);
}

// ---- cuzk seal-test --post-randomness --------------------------------------------------------------

std::vector<uint8_t> read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

nlohmann::json read_json(const fs::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
}

class PostSealTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cuzk_post_vanilla_" + std::to_string(getpid()) + "_" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

TEST_F(PostSealTest, WritesVerifiableProofsOfSeveralSectors) {
    const std::string rand = c1::to_hex(test_randomness(5));
    const auto r = test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --rng postv --sector-id 20 "
                                  "--sectors 3 --post-randomness " + rand + " --out " + dir_.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::exists(dir_ / "c1.json"));
    EXPECT_TRUE(fs::exists(dir_ / "seal.json"));
    EXPECT_TRUE(fs::exists(dir_ / "sector-22" / "c1.json"));
    const auto seal = read_json(dir_ / "seal.json");
    EXPECT_EQ(seal["prover_id"], read_json(dir_ / "sector-21" / "seal.json")["prover_id"]);

    const auto post = read_json(dir_ / "post.json");
    EXPECT_EQ(post["synthetic"], false);
    EXPECT_EQ(post["randomness"], rand);
    EXPECT_EQ(post["window_post"]["registered_proof"], "StackedDrgWindow2KiBV1_1");
    EXPECT_EQ(post["winning_post"]["registered_proof"], "StackedDrgWinning2KiBV1");
    ASSERT_EQ(post["sectors"].size(), 3u);
    EXPECT_EQ(post["sectors"][0]["comm_r"], seal["comm_r"]);

    const auto window = vanilla_shape_of(2 * KiB, WINDOW_POST_CHALLENGES);
    const auto winning = vanilla_shape_of(2 * KiB, WINNING_POST_CHALLENGES);
    std::vector<std::vector<uint8_t>> window_files;
    for (const auto& s : post["sectors"]) {
        const uint64_t id = s["sector_id"];
        window_files.push_back(read_bytes(dir_ / s["window_vanilla"].get<std::string>()));
        const auto w = decode_sector_proof(window_files.back(), window);
        EXPECT_EQ(c1::to_hex(w.comm_r), s["comm_r"]);
        verify_sector_proof(w, window, sector_challenges(graph::api_version::v1_2, test_randomness(5), id, 0, 10, 64));
        const auto win = decode_sector_proof(read_bytes(dir_ / s["winning_vanilla"].get<std::string>()), winning);
        verify_sector_proof(win, winning,
                            sector_challenges(graph::api_version::v1_0, test_randomness(5), id, 0, 66, 64));
    }
    const std::vector<std::span<const uint8_t>> spans(window_files.begin(), window_files.end());
    EXPECT_EQ(decode_window_proofs(spans, window, 3).back().sector_id, 22u);
}

TEST_F(PostSealTest, ApiVersion100UsesTheSectorsPosition) {
    const std::string rand = c1::to_hex(test_randomness(6));
    const auto r = test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1 --rng postv1 --sectors 2 "
                                  "--post-api-version 1.0.0 --post-randomness " + rand + " --out " + dir_.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto post = read_json(dir_ / "post.json");
    EXPECT_EQ(post["window_post"]["registered_proof"], "StackedDrgWindow2KiBV1");
    const auto shape = vanilla_shape_of(2 * KiB, WINDOW_POST_CHALLENGES);
    const auto& s = post["sectors"][1];
    const auto p = decode_sector_proof(read_bytes(dir_ / s["window_vanilla"].get<std::string>()), shape);
    const uint64_t id = s["sector_id"];
    verify_sector_proof(p, shape, sector_challenges(graph::api_version::v1_0, test_randomness(6), id, 1, 10, 64));
}

TEST_F(PostSealTest, SyntheticThirtyTwoGiBSaysWhatItIsAndVerifies) {
    const auto r = test::run_cuzk("seal-test --registered-proof StackedDrg32GiBV1_1 --synthetic --sectors 3 "
                                  "--post-randomness " + c1::to_hex(test_randomness(7)) + " --out " + dir_.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("SYNTHETIC"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("not of a sealed sector"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "c1.json"));
    const auto post = read_json(dir_ / "post.json");
    EXPECT_EQ(post["synthetic"], true);
    EXPECT_NE(post["note"].get<std::string>().find("not of a sealed sector"), std::string::npos);
    EXPECT_EQ(post["window_post"]["registered_proof"], "StackedDrgWindow32GiBV1_1");
    const auto window = vanilla_shape_of(32 * GiB, WINDOW_POST_CHALLENGES);
    std::vector<std::vector<uint8_t>> files;
    for (const auto& s : post["sectors"]) {
        files.push_back(read_bytes(dir_ / s["window_vanilla"].get<std::string>()));
        EXPECT_EQ(files.back().size(), 24960u);
    }
    const std::vector<std::span<const uint8_t>> spans(files.begin(), files.end());
    const auto decoded = decode_window_proofs(spans, window, 2349);
    ASSERT_EQ(decoded.size(), 3u);
    for (size_t i = 0; i < decoded.size(); ++i)  // each verifies against its own challenges (API 1.2.0)
        EXPECT_NO_THROW(verify_sector_proof(decoded[i], window,
                                            sector_challenges(graph::api_version::v1_2, test_randomness(7),
                                                              decoded[i].sector_id, i, 10, window.leaves)));
    const auto winning = read_bytes(dir_ / post["sectors"][0]["winning_vanilla"].get<std::string>());
    EXPECT_EQ(winning.size(), 164064u);
    EXPECT_EQ(decode_sector_proof(winning, vanilla_shape_of(32 * GiB, WINNING_POST_CHALLENGES)).comm_r,
              decode_sector_proof(files[0], window).comm_r);
    EXPECT_TRUE(post["sectors"][1]["winning_vanilla"].is_null());
}

TEST_F(PostSealTest, BadInputExitsTwo) {
    auto r = test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --post-randomness " +
                            std::string(64, 'f') + " --out " + dir_.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--post-randomness"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "c1.json"));  // refused before sealing
    r = test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --post-randomness 1234 --out " + dir_.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    r = test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --post-api-version 1.1.0 --post-randomness " +
                       c1::to_hex(test_randomness(1)) + " --out " + dir_.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("1.2.0"), std::string::npos) << r.output;
    r = test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --sectors 0 --out " + dir_.string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST_F(PostSealTest, WithoutTheNewFlagsNothingMoreIsWritten) {
    const auto r = test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --rng postv --out " + dir_.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"c1.json", "seal.json"}));
}

}  // namespace
