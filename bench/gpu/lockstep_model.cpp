// A host-only model of the batch-affine rounds' warp steps (gpud/cuda/msm_batch_affine.cuh, "Lockstep"):
// how many more steps a warp takes when its threads walk their chunks one slot per step (a multiplication
// costs the warp whenever any thread pairs) than when they walk one pair per step (lockstep).
//
//   cuzk_lockstep_model [LOG_N [C [CHUNK [ROUNDS]]]]     defaults: 24 22 128 4
//
// The shape is that of a G1 MSM of 2^LOG_N random scalars through the precomputed window multiples: the
// floor(255 / C) full windows share one set of 2^(C-1) buckets, the short top window has its own; bucket
// sizes are Poisson with the mean the sorted pairs give (a random scalar's digit is uniform enough for this).
// The sorted pairs are cut into chunks of CHUNK; a warp takes 32 consecutive chunks. Per round a run of L
// points of one bucket in a chunk makes floor(L / 2) pairs and ceil(L / 2) outputs; a step-by-step warp
// takes as many steps as its chunk with the most outputs, a lockstep warp as many as its chunk with the most
// pairs. Deterministic (fixed seed), so docs/benchmarks-history.md's figures rerun exactly.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

int arg(int argc, char** argv, int i, int fallback) {
    if (argc <= i) return fallback;
    char* end = nullptr;
    const long v = std::strtol(argv[i], &end, 10);
    if (*end != '\0' || v < 1 || v > 1024) {
        std::fprintf(stderr, "cuzk_lockstep_model: argument %d must be a positive integer, not '%s'\n", i, argv[i]);
        std::exit(2);
    }
    return int(v);
}

}  // namespace

int main(int argc, char** argv) {
    const int log_n = arg(argc, argv, 1, 24), c = arg(argc, argv, 2, 22);
    const unsigned chunk = unsigned(arg(argc, argv, 3, 128)), rounds = unsigned(arg(argc, argv, 4, 4));
    if (log_n > 30 || c < 2 || c > 30) {
        std::fprintf(stderr, "cuzk_lockstep_model: LOG_N must be at most 30 and C in [2, 30]\n");
        return 2;
    }
    const double n = double(uint64_t(1) << log_n);
    const int full = 255 / c, top_bits = 256 - full * c;
    const size_t buckets = size_t(1) << (c - 1), top_buckets = size_t(1) << std::max(top_bits - 1, 0);

    std::mt19937_64 rng(1);
    std::vector<uint32_t> runs;  // bucket sizes in sorted order
    runs.reserve(buckets + top_buckets);
    std::poisson_distribution<int> full_size(n * full / double(buckets)), top_size(n / double(top_buckets));
    for (size_t b = 0; b < buckets; ++b) runs.push_back(uint32_t(full_size(rng)));
    for (size_t b = 0; b < top_buckets; ++b) runs.push_back(uint32_t(top_size(rng)));

    // Chunks as lists of run lengths.
    std::vector<std::vector<uint32_t>> chunks;
    std::vector<uint32_t> cur;
    unsigned fill = 0;
    for (uint32_t len : runs) {
        while (len > 0) {
            const unsigned take = std::min(len, chunk - fill);
            cur.push_back(take);
            fill += take;
            len -= take;
            if (fill == chunk) {
                chunks.push_back(std::move(cur));
                cur.clear();
                fill = 0;
            }
        }
    }
    if (!cur.empty()) chunks.push_back(std::move(cur));

    std::printf("2^%d scalars, c = %d (%d full windows + a %d-bit top window), %u-pair chunks: %zu chunks\n", log_n,
                c, full, top_bits, chunk, chunks.size());
    std::printf("| round | pairs | warp steps, step by step (x32) | lockstep (x32) | extra steps |\n|---|---:|---:|---:|---:|\n");
    for (unsigned r = 0; r < rounds; ++r) {
        double pairs = 0, step_by_step = 0, lockstep = 0;
        for (size_t w = 0; w < chunks.size(); w += 32) {
            unsigned most_outputs = 0, most_pairs = 0;
            for (size_t k = w; k < std::min(chunks.size(), w + 32); ++k) {
                unsigned p = 0, o = 0;
                for (uint32_t len : chunks[k]) {
                    p += len / 2;
                    o += (len + 1) / 2;
                }
                pairs += p;
                most_outputs = std::max(most_outputs, o);
                most_pairs = std::max(most_pairs, p);
            }
            step_by_step += most_outputs;
            lockstep += most_pairs;
        }
        std::printf("| %u | %.1f M | %.1f M | %.1f M | %.1f %% |\n", r, pairs / 1e6, 32 * step_by_step / 1e6,
                    32 * lockstep / 1e6, lockstep > 0 ? 100.0 * (step_by_step - lockstep) / lockstep : 0.0);
        for (auto& ch : chunks)
            for (auto& len : ch) len = (len + 1) / 2;
    }
    return 0;
}
