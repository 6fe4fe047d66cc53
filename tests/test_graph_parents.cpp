// StackedDRG parents: the ChaCha generator against published ChaCha8 vectors and OpenSSL's ChaCha20,
// the Feistel permutation's properties, and the behaviours rust-fil-proofs' graph tests pin down
// (V1_0's expander truncation pathology at 32 GiB, high expander bits at 64 GiB, an even spread of
// expander parents, DRG predecessor placement per API version). No published parent lists were
// found to compare with; the seal round trip (test sealer + circuit) checks the rest end to end.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <array>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/graph/chacha_rng.hpp"
#include "common/graph/stacked_graph.hpp"

namespace {

using namespace cuzk::graph;

std::vector<uint8_t> unhex(const std::string& s) {
    std::vector<uint8_t> out(s.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(std::stoul(s.substr(2 * i, 2), nullptr, 16));
    return out;
}

std::vector<uint8_t> keystream(const chacha_rng& rng, uint64_t first_block, size_t blocks) {
    std::vector<uint8_t> out;
    for (size_t b = 0; b < blocks; ++b) {
        for (uint32_t w : rng.block(first_block + b)) {
            for (int i = 0; i < 4; ++i) out.push_back(uint8_t(w >> (8 * i)));
        }
    }
    return out;
}

// draft-strombergson-chacha-test-vectors, TC1: 256-bit zero key, zero IV, 8 rounds, two blocks.
TEST(ChaCha, Chacha8PublishedVector) {
    chacha_rng rng = chacha8_rng({});
    EXPECT_EQ(keystream(rng, 0, 2),
              unhex("3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e"
                    "984ce172b9216f419f445367456d5619314a42a3da86b001387bfdb80e0cfe42"
                    "d2aefa0deaa5c151bf0adb6c01f2a5adc0fd581259f9a2aadcf20f8fd566a26b"
                    "5032ec38bbc5da98ee0c6f568b872a65a08abf251deb21bb4b56e5d8821e68aa"));
}

// The same core with 20 rounds equals OpenSSL's ChaCha20 (RFC 8439 layout: 32-bit counter and a
// 96-bit nonce, which matches the 64/64 layout while the counter stays below 2^32).
TEST(ChaCha, Chacha20MatchesOpenSSL) {
    std::mt19937_64 gen(7);
    for (int trial = 0; trial < 4; ++trial) {
        std::array<uint8_t, 32> key{};
        for (auto& b : key) b = uint8_t(gen());
        chacha_rng rng(key, 10);
        std::vector<uint8_t> zeros(64 * 5), ours = keystream(rng, 0, 5), theirs(zeros.size());
        uint8_t iv[16] = {};
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        ASSERT_EQ(EVP_EncryptInit_ex(ctx, EVP_chacha20(), nullptr, key.data(), iv), 1);
        int len = 0;
        ASSERT_EQ(EVP_EncryptUpdate(ctx, theirs.data(), &len, zeros.data(), int(zeros.size())), 1);
        EVP_CIPHER_CTX_free(ctx);
        EXPECT_EQ(ours, theirs) << "trial " << trial;
    }
}

TEST(ChaCha, U64IsTwoWordsLowFirstAcrossBlocks) {
    std::array<uint8_t, 32> seed{};
    seed[0] = 9;
    chacha_rng a = chacha8_rng(seed), b = chacha8_rng(seed);
    auto blk0 = a.block(0), blk1 = a.block(1);
    EXPECT_EQ(b.next_u32(), blk0[0]);  // one word consumed: the next u64 straddles the block end
    for (int i = 0; i < 7; ++i) EXPECT_EQ(b.next_u64(), uint64_t(blk0[2 + 2 * i]) << 32 | blk0[1 + 2 * i]);
    EXPECT_EQ(b.next_u64(), uint64_t(blk1[0]) << 32 | blk0[15]);
}

TEST(Feistel, PowerOfFourIsAPermutationWithInverse) {
    const feistel_keys keys = {1, 2, 3, 4};
    for (uint64_t n : {4u, 16u, 64u, 256u}) {
        auto p = feistel_precompute(n);
        std::set<uint64_t> seen;
        for (uint64_t i = 0; i < n; ++i) {
            uint64_t e = feistel_encode(i, keys, p);
            EXPECT_LT(e, n);
            EXPECT_EQ(feistel_decode(e, keys, p), i);
            seen.insert(e);
        }
        EXPECT_EQ(seen.size(), n);
    }
}

// Sizes that are not powers of 4 need cycle walking: one pass leaves the range for some index
// (as rust-fil-proofs' test expects for these sizes), permute/invert still round-trip in range.
TEST(Feistel, CycleWalkingOnOtherSizes) {
    const feistel_keys keys = {1, 2, 3, 4};
    for (uint64_t n : {5u, 6u, 8u, 12u, 17u}) {
        auto p = feistel_precompute(n);
        bool one_pass_left_range = false;
        for (uint64_t i = 0; i < n; ++i) {
            one_pass_left_range |= feistel_encode(i, keys, p) >= n;
            uint64_t q = feistel_permute(n, i, keys, p);
            EXPECT_LT(q, n);
            EXPECT_EQ(feistel_invert(n, q, keys, p), i);
        }
        EXPECT_TRUE(one_pass_left_range) << "n = " << n;
    }
    // The expander's index space, 2^10 nodes x 8.
    const uint64_t n = 1024 * 8;
    auto p = feistel_precompute(n);
    std::vector<bool> hit(n);
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t q = feistel_permute(n, i, keys, p);
        ASSERT_LT(q, n);
        EXPECT_FALSE(hit[q]);
        hit[q] = true;
    }
}

porep_id_t id_byte0(uint8_t b) {
    porep_id_t id{};
    id[0] = b;
    return id;
}

// V1_0 truncated the permuted index to 32 bits, so at 32 GiB (2^30 nodes, 2^33 expander indices)
// no expander parent reaches the upper half of the layer; V1_1 fixed it.
TEST(StackedGraph, V1_0ExpanderPathologyAt32GiB) {
    const uint64_t nodes = uint64_t(1) << 30;
    stacked_graph legacy(nodes, id_byte0(3), api_version::v1_0);
    std::array<uint32_t, expansion_degree> exp{};
    for (uint64_t v = 0; v < 1000; ++v) {
        legacy.expanded_parents(v, exp);
        for (uint32_t u : exp) ASSERT_LT(u, nodes / 2) << "node " << v;
    }
    for (uint8_t id : {uint8_t(8), uint8_t(10)}) {
        stacked_graph fixed(nodes, id_byte0(id), id == 8 ? api_version::v1_1 : api_version::v1_2);
        bool upper_half = false;
        for (uint64_t v = 0; v < 1000 && !upper_half; ++v) {
            fixed.expanded_parents(v, exp);
            for (uint32_t u : exp) upper_half |= u >= nodes / 2;
        }
        EXPECT_TRUE(upper_half) << "porep id byte " << int(id);
    }
}

TEST(StackedGraph, HighExpanderBitsAndSpreadAt64GiB) {
    const uint64_t nodes = uint64_t(1) << 31;
    stacked_graph g(nodes, porep_id_of(5), api_version::v1_1);
    std::array<uint32_t, expansion_degree> exp{};
    bool high = false;
    for (uint64_t v = 0; v < 3 && !high; ++v) {
        g.expanded_parents(v, exp);
        for (uint32_t u : exp) high |= u >= (uint32_t(1) << 29);
    }
    EXPECT_TRUE(high);

    // 10,000 children spread over the sector: each of 32 bins gets its share of parents +-40%.
    constexpr size_t samples = 10000, bins = 32;
    std::array<size_t, bins> hist{};
    for (size_t s = 0; s < samples; ++s) {
        g.expanded_parents(uint64_t(s) * nodes / samples, exp);
        for (uint32_t u : exp) ++hist[u / (nodes / bins)];
    }
    const double uniform = double(samples * expansion_degree) / bins;
    for (size_t b = 0; b < bins; ++b) {
        EXPECT_GT(double(hist[b]), 0.6 * uniform) << "bin " << b;
        EXPECT_LT(double(hist[b]), 1.4 * uniform) << "bin " << b;
    }
}

TEST(BucketGraph, ParentsAreEarlierNodesWithThePredecessorPlacedPerVersion) {
    const uint64_t nodes = 1 << 12;
    bucket_graph legacy(nodes, porep_id_of(0), api_version::v1_0);
    bucket_graph current(nodes, porep_id_of(0), api_version::v1_1);
    std::array<uint32_t, drg_degree> a{}, b{};
    for (uint64_t v : {0u, 1u}) {
        current.parents(v, b);
        for (uint32_t u : b) EXPECT_EQ(u, 0u);
    }
    for (uint64_t v = 2; v < nodes; ++v) {
        legacy.parents(v, a);
        current.parents(v, b);
        for (uint32_t u : b) ASSERT_LT(u, v);
        EXPECT_EQ(b[0], v - 1);
        EXPECT_EQ(a[drg_degree - 1], v - 1);
        // The same ChaCha8 draws: V1_1 only moves the predecessor to the front.
        for (size_t k = 0; k + 1 < drg_degree; ++k) ASSERT_EQ(a[k], b[k + 1]) << "node " << v;
    }
    // Another porep id gives another graph.
    bucket_graph other(nodes, porep_id_of(5), api_version::v1_1);
    size_t differ = 0;
    for (uint64_t v = 2; v < 200; ++v) {
        current.parents(v, a);
        other.parents(v, b);
        differ += a != b;
    }
    EXPECT_GT(differ, 150u);
}

TEST(BucketGraph, DistancesCoverNearAndFar) {
    // DRSample draws buckets uniformly in log distance: about as many parents fall within 2^4 nodes
    // as beyond half the node index.
    const uint64_t nodes = 1 << 20;
    bucket_graph g(nodes, porep_id_of(5), api_version::v1_1);
    std::array<uint32_t, drg_degree> p{};
    size_t near = 0, far = 0, total = 0;
    for (uint64_t v = nodes / 2; v < nodes / 2 + 2000; ++v) {
        g.parents(v, p);
        for (size_t k = 1; k < drg_degree; ++k, ++total) {
            uint64_t d = v - p[k];
            near += d <= 16;
            far += d > v / 2;
        }
    }
    EXPECT_GT(near, total / 20);
    EXPECT_GT(far, total / 40);
}

TEST(StackedGraph, SmallSectorsAgreeAcrossVersionsForExpanders) {
    // Below 2^29 nodes the truncation cannot bite: V1_0 and V1_1 expanders coincide.
    stacked_graph a(64, porep_id_of(0), api_version::v1_0), b(64, porep_id_of(0), api_version::v1_1);
    std::array<uint32_t, stacked_degree> pa{}, pb{};
    for (uint64_t v = 0; v < 64; ++v) {
        a.parents(v, pa);
        b.parents(v, pb);
        for (size_t k = drg_degree; k < stacked_degree; ++k) {
            EXPECT_EQ(pa[k], pb[k]);
            EXPECT_LT(pa[k], 64u);
        }
    }
}

TEST(PorepId, Layout) {
    auto id = porep_id_of(5, 0x0102);
    EXPECT_EQ(id[0], 5);
    EXPECT_EQ(id[8], 2);
    EXPECT_EQ(id[9], 1);
    for (size_t i = 10; i < 32; ++i) EXPECT_EQ(id[i], 0);
}

}  // namespace
