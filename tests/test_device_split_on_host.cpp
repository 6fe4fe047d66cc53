// The GPU MSM's split-bucket step (gpud/cuda/msm_split.cuh) compiled for the host: the galloping run bounds
// against std::lower_bound / upper_bound, and the whole step (bounds, short splits summed by their tail,
// pairwise passes over the long ones, their write) run chunk by chunk in msm_run.cuh's order over chunk results
// like the accumulation kernels leave, against each bucket's sum made directly. The "points" are integers
// under addition: the step only ever adds partial sums, so the bookkeeping is what is under test.
// test_cuda_msm checks the same code on a GPU with curve points, a scalar repeated over the whole MSM too.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "gpud/cuda/msm_split.cuh"

using namespace cuzk;
namespace split = cuzk::cuda::split;

namespace {

struct int_point {
    uint64_t v = 0;
    void add(const int_point& o) { v += o.v; }
};

// Sorted keys of |windows| windows of width c (local key 2^(c-1) is the zero digit), each key's run drawn
// from |lengths|.
std::vector<uint32_t> sorted_keys(std::mt19937_64& rng, unsigned c, unsigned windows,
                                  const std::vector<unsigned>& lengths) {
    std::vector<uint32_t> keys;
    const uint32_t half = 1u << (c - 1);
    for (uint32_t w = 0; w < windows; ++w) {
        for (uint32_t local = 0; local <= half; ++local) {
            const unsigned len = lengths[rng() % lengths.size()];
            keys.insert(keys.end(), len, (w << c) | local);
        }
    }
    return keys;
}

TEST(DeviceSplitOnHost, RunBoundsMatchTheStandardSearches) {
    std::mt19937_64 rng(11);
    for (int trial = 0; trial < 40; ++trial) {
        const std::vector<unsigned> lengths = {0, 1, 1, 2, 3, 5, 8, 13, 31, 64, 100, 700};
        const auto keys = sorted_keys(rng, 5, 3, lengths);
        if (keys.empty()) continue;
        for (size_t s = 0; s < keys.size(); ++s) {
            const size_t first = size_t(std::lower_bound(keys.begin(), keys.end(), keys[s]) - keys.begin());
            const size_t last = size_t(std::upper_bound(keys.begin(), keys.end(), keys[s]) - keys.begin()) - 1;
            ASSERT_EQ(split::run_first(keys.data(), s), first) << "index " << s << " of " << keys.size();
            ASSERT_EQ(split::run_last(keys.data(), s, keys.size()), last) << "index " << s << " of " << keys.size();
        }
    }
    // One run over everything, and a single key.
    const std::vector<uint32_t> same(1000, 7u), one(1, 3u);
    EXPECT_EQ(split::run_first(same.data(), 999), 0u);
    EXPECT_EQ(split::run_last(same.data(), 0, same.size()), 999u);
    EXPECT_EQ(split::run_first(one.data(), 0), 0u);
    EXPECT_EQ(split::run_last(one.data(), 0, 1), 0u);
}

// Chunk results as the accumulation kernels leave them: per chunk of |chunk| sorted pairs, runs summed into
// whole buckets, a head and a tail.
struct chunked {
    std::vector<int_point> buckets, head, tail;
    std::vector<uint8_t> head_state;
    std::vector<uint32_t> tail_bucket, head_first, head_last, tail_last;
};

chunked accumulate_chunks(const std::vector<uint32_t>& keys, const std::vector<uint64_t>& vals, unsigned c,
                          size_t nbuckets, unsigned chunk) {
    const size_t total = keys.size(), chunks = (total + chunk - 1) / chunk;
    chunked r;
    r.buckets.assign(nbuckets, {});
    r.head.assign(chunks, {});
    r.tail.assign(chunks, {});
    r.head_state.assign(chunks, 0xee);
    r.tail_bucket.assign(chunks, 0xeeeeeeee);
    r.head_first.assign(chunks, 0xeeeeeeee);
    r.head_last.assign(chunks, 0xeeeeeeee);
    r.tail_last.assign(chunks, 0xeeeeeeee);
    const cuda::chunk_results<int_point> out{r.buckets.data(), r.head.data(), r.head_state.data(), r.tail.data(),
                                             r.tail_bucket.data()};
    const cuda::pair_keys pk(c);
    for (size_t k = 0; k < chunks; ++k) {
        const size_t s = k * chunk, e = std::min(total, s + chunk);
        out.clear(k);
        uint32_t cur = keys[s];
        bool starts_here = s == 0 || keys[s - 1] != cur;
        int_point acc;
        for (size_t i = s; i < e; ++i) {
            if (keys[i] != cur) {
                out.write(k, pk, cur, starts_here, true, acc);
                acc = {};
                cur = keys[i];
                starts_here = true;
            }
            acc.v += vals[i];
        }
        out.write(k, pk, cur, starts_here, e == total || keys[e] != cur, acc);
    }
    return r;
}

// msm_run.cuh's sequence: the bounds kernel, the short splits' sums, then the passes while a long split reaches that far, then the write.
// On the GPU a pass's chunks run in any order at once, which is right only if no position is both read and
// written in one pass: each pass here takes the chunks in a fresh random order, so a pass that breaks that
// rule sums wrongly.
void finish_splits(chunked& r, const std::vector<uint32_t>& keys, unsigned chunk, uint32_t* passes,
                   std::mt19937_64& rng) {
    const size_t chunks = r.head.size();
    const split::splits<int_point> sp{r.head_state.data(), r.tail_bucket.data(), r.head_first.data(),
                                      r.head_last.data(),  r.tail_last.data(),   r.head.data(),
                                      r.tail.data(),       r.buckets.data()};
    uint32_t max_span = 0;
    for (size_t k = 0; k < chunks; ++k) max_span = std::max(max_span, sp.bound(keys.data(), keys.size(), chunk, k));
    for (size_t k = 0; k < chunks; ++k) sp.sum_short(k);
    *passes = 0;
    if (max_span == 0) return;
    // The bounds kernel's list: the chunks of long splits.
    std::vector<size_t> order;
    for (size_t k = 0; k < chunks; ++k) {
        if (sp.is_long(k)) order.push_back(k);
    }
    for (uint32_t step = 1; step <= max_span; step *= 2, ++*passes) {
        std::shuffle(order.begin(), order.end(), rng);
        for (size_t k : order) sp.combine_long(k, step);
    }
    for (size_t k : order) sp.write_long(k);
}

TEST(DeviceSplitOnHost, SplitBucketsSumToEachBucketsPairs) {
    constexpr unsigned c = 5, windows = 3;
    const cuda::pair_keys pk(c);
    const size_t nbuckets = size_t(windows) * pk.half;
    std::mt19937_64 rng(5);
    bool saw_short = false, saw_long = false;
    // Run lengths: short ones (within a chunk or a few), and long ones of up to ~100 chunks of 8.
    const std::vector<std::vector<unsigned>> mixes = {
        {0, 1, 2, 3, 9, 17, 40}, {0, 5, 64, 65, 130, 200}, {1, 3, 800}, {0, 0, 0, 2000}};
    for (unsigned chunk : {1u, 3u, 8u, 64u}) {
        // And runs whose spans straddle SERIAL_SPAN, every length from S - 1 to S + 3 chunks.
        std::vector<unsigned> boundary;
        for (unsigned len = (split::SERIAL_SPAN - 1) * chunk; len <= (split::SERIAL_SPAN + 3) * chunk; ++len) {
            boundary.push_back(len);
        }
        auto all = mixes;
        all.push_back(boundary);
        for (const auto& lengths : all) {
            for (int trial = 0; trial < (&lengths == &all.back() ? 24 : 4); ++trial) {
                const auto keys = sorted_keys(rng, c, windows, lengths);
                if (keys.empty()) continue;
                std::vector<uint64_t> vals(keys.size());
                std::vector<uint64_t> want(nbuckets, 0);
                for (size_t i = 0; i < keys.size(); ++i) {
                    vals[i] = rng() >> 8;
                    if (!pk.zero_digit(keys[i])) want[pk.bucket(keys[i])] += vals[i];
                }
                chunked r = accumulate_chunks(keys, vals, c, nbuckets, chunk);
                uint32_t passes = 0;
                finish_splits(r, keys, chunk, &passes, rng);
                for (size_t b = 0; b < nbuckets; ++b) {
                    ASSERT_EQ(r.buckets[b].v, want[b]) << "bucket " << b << ", chunk " << chunk << ", "
                                                       << keys.size() << " pairs";
                }
                // Passes only where a long split exists, as many as the longest one's span needs.
                uint32_t longest = 0;
                for (size_t k = 0; k < r.head.size(); ++k) {
                    if (r.tail_bucket[k] == cuda::NO_BUCKET) continue;
                    const uint32_t span = r.tail_last[k] - uint32_t(k);
                    (span > split::SERIAL_SPAN ? saw_long : saw_short) = true;
                    if (span > split::SERIAL_SPAN) longest = std::max(longest, span);
                }
                uint32_t want_passes = 0;
                for (uint32_t step = 1; longest > 0 && step <= longest; step *= 2) ++want_passes;
                EXPECT_EQ(passes, want_passes) << "chunk " << chunk << ", longest split " << longest;
            }
        }
    }
    EXPECT_TRUE(saw_short);
    EXPECT_TRUE(saw_long);
}

}  // namespace
