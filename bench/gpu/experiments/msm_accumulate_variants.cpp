// The GPU MSM's XYZZ bucket accumulation (gpud/cuda/msm_accumulate.cuh) against the alternatives it was
// chosen from (msm_accumulate_variants.cu), on the same sorted (bucket, point) pairs. Production takes the
// prefetching kernel with the multiplications inlined and no register cap (on an H200, 2^24 random: 113.7 ms
// against 116.8 called and 119.8 without the prefetch; docs/benchmarks-history.md).
//
// The pairs are uniform random buckets of |windows| windows of c bits (zero digits included, as Pippenger's),
// sorted by key, over points made on the device (msm_context::generate_points). Every kernel's chunk results
// (whole buckets, heads and tails) must add up to the sum of all the pairs' signed points: at 2^check-log
// pairs against that sum made on the CPU, at the timed size against the first kernel's (exit 1 on a mismatch).
//
//   cuzk_msm_accumulate_variants [--log 24] [--check-log 18] [--window-bits 16] [--reps 5] [--g2]
//   (built with -DCUZK_BUILD_EXPERIMENTS=ON)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/gpu/experiments/msm_accumulate_variants.hpp"
#include "common/ec/jacobian.hpp"
#include "common/ec/xyzz.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/msm.hpp"
#include "tests/support/curve_points.hpp"

using namespace cuzk;
using experiments::accumulation_args;

namespace {

constexpr uint32_t NEG_FLAG = 0x80000000u, NO_BUCKET = 0xffffffffu;  // as gpud/cuda/msm_pairs.cuh

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

int arg_int(int argc, char** argv, const char* name, int def) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
    }
    return def;
}

bool has_flag(int argc, char** argv, const char* name) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return true;
    }
    return false;
}

// Sorted pairs of |windows| windows of c bits: keys (w << c) | local with local uniform in [0, 2^(c-1)] (the
// top value the zero digit), values random point indices, a third of them negated.
struct sorted_pairs {
    std::vector<uint32_t> keys, vals;
};
sorted_pairs make_pairs(size_t total, unsigned windows, unsigned c, size_t npoints, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const uint32_t half = 1u << (c - 1);
    std::vector<uint64_t> kv(total);
    for (size_t i = 0; i < total; ++i) {
        const uint32_t w = uint32_t(i % windows), local = uint32_t(rng() % (half + 1));
        uint32_t v = uint32_t(rng() % npoints);
        if (rng() % 3 == 0) v |= NEG_FLAG;
        kv[i] = (uint64_t((w << c) | local) << 32) | v;
    }
    std::sort(kv.begin(), kv.end());
    sorted_pairs p;
    p.keys.resize(total);
    p.vals.resize(total);
    for (size_t i = 0; i < total; ++i) {
        p.keys[i] = uint32_t(kv[i] >> 32);
        p.vals[i] = uint32_t(kv[i]);
    }
    return p;
}

// Device memory that frees itself.
struct device_bytes {
    void* p = nullptr;
    explicit device_bytes(size_t n) { check(cudaMalloc(&p, std::max<size_t>(n, 1)), "cudaMalloc"); }
    ~device_bytes() { cudaFree(p); }
    device_bytes(const device_bytes&) = delete;
    device_bytes& operator=(const device_bytes&) = delete;
};

// One accumulation's buffers over |pairs|, with what the kernels leave in them added up on the CPU.
template <class HF>
struct accumulation {
    using B = ec::xyzz_t<HF>;  // the device bucket's layout (msm.cu asserts it)
    size_t total, chunks, nbuckets;
    device_bytes keys, vals, buckets, head, tail, head_state, tail_bucket;
    accumulation_args args;

    accumulation(const sorted_pairs& p, const void* points, unsigned chunk, unsigned c, unsigned windows)
        : total(p.keys.size()), chunks((total + chunk - 1) / chunk), nbuckets(size_t(windows) << (c - 1)),
          keys(total * 4), vals(total * 4), buckets(nbuckets * sizeof(B)), head(chunks * sizeof(B)),
          tail(chunks * sizeof(B)), head_state(chunks), tail_bucket(chunks * 4) {
        check(cudaMemcpy(keys.p, p.keys.data(), total * 4, cudaMemcpyHostToDevice), "keys");
        check(cudaMemcpy(vals.p, p.vals.data(), total * 4, cudaMemcpyHostToDevice), "values");
        args = {points,   static_cast<const uint32_t*>(keys.p), static_cast<const uint32_t*>(vals.p),
                total,    chunk,
                c,        chunks,
                buckets.p, head.p,
                static_cast<uint8_t*>(head_state.p), tail.p,
                static_cast<uint32_t*>(tail_bucket.p)};
    }
    void clear() { check(cudaMemset(buckets.p, 0, nbuckets * sizeof(B)), "cudaMemset"); }  // zz = 0: identity

    // Buckets, heads (state != 0) and tails (a bucket named) added up: the sum of every pair's signed point.
    ec::jacobian_t<HF> sum() const {
        std::vector<B> b(nbuckets), h(chunks), t(chunks);
        std::vector<uint8_t> hs(chunks);
        std::vector<uint32_t> tb(chunks);
        check(cudaMemcpy(b.data(), buckets.p, b.size() * sizeof(B), cudaMemcpyDeviceToHost), "buckets");
        check(cudaMemcpy(h.data(), head.p, h.size() * sizeof(B), cudaMemcpyDeviceToHost), "heads");
        check(cudaMemcpy(t.data(), tail.p, t.size() * sizeof(B), cudaMemcpyDeviceToHost), "tails");
        check(cudaMemcpy(hs.data(), head_state.p, chunks, cudaMemcpyDeviceToHost), "head states");
        check(cudaMemcpy(tb.data(), tail_bucket.p, chunks * 4, cudaMemcpyDeviceToHost), "tail buckets");
        B acc = B::identity();
        for (const B& x : b) acc.add(x);
        for (size_t k = 0; k < chunks; ++k) {
            if (hs[k] != 0) acc.add(h[k]);
            if (tb[k] != NO_BUCKET) acc.add(t[k]);
        }
        return acc.to_jacobian();
    }
};

template <class HF>
int run(int argc, char** argv) {
    const bool g2 = !std::is_same_v<HF, ff::fp_t>;
    const int log = arg_int(argc, argv, "--log", 24), check_log = arg_int(argc, argv, "--check-log", 18);
    const unsigned c = unsigned(arg_int(argc, argv, "--window-bits", 16)), windows = (256 + c - 1) / c;
    const int reps = arg_int(argc, argv, "--reps", 5);
    const unsigned chunk = 128;  // production's XYZZ_CHUNK
    const size_t npoints = size_t(1) << 20;
    std::mt19937_64 rng(1);
    std::vector<ec::affine_t<HF>> seeds(2049);
    for (auto& p : seeds) p = test::random_curve_point<HF>(rng);
    cuda::msm_context<HF> ctx;
    ctx.generate_points(npoints, seeds);
    const auto host_points = ctx.download_points();
    std::vector<std::byte> packed(npoints * 2 * sizeof(HF));
    ctx.download_points_packed(packed.data());
    device_bytes points(packed.size());
    check(cudaMemcpy(points.p, packed.data(), packed.size(), cudaMemcpyHostToDevice), "points");
    std::printf("device: %s; %s, c = %u, %u windows, %u pairs per chunk\n", cuda::device_description(0).c_str(),
                g2 ? "G2" : "G1", c, windows, chunk);
    const unsigned nv = experiments::accumulate_variants(g2);
    bool ok = true;
    {
        // Every kernel against the CPU's sum of the pairs' signed points.
        const sorted_pairs p = make_pairs(size_t(1) << check_log, windows, c, npoints, 2);
        ec::xyzz_t<HF> want = ec::xyzz_t<HF>::identity();
        const uint32_t half = 1u << (c - 1), local_mask = (1u << c) - 1;
        for (size_t i = 0; i < p.keys.size(); ++i) {
            if ((p.keys[i] & local_mask) == half) continue;  // zero digit
            ec::affine_t<HF> q = host_points[p.vals[i] & ~NEG_FLAG];
            if (p.vals[i] & NEG_FLAG) q = -q;
            want.accumulate(q);
        }
        accumulation<HF> a(p, points.p, chunk, c, windows);
        for (unsigned v = 0; v < nv; ++v) {
            a.clear();
            experiments::launch_accumulate_variant(g2, v, a.args);
            check(cudaDeviceSynchronize(), "kernel");
            const bool same = a.sum() == want.to_jacobian();
            ok = ok && same;
            std::printf("2^%d pairs, %s: %s the CPU\n", check_log, experiments::accumulate_variant_name(g2, v),
                        same ? "==" : "MISMATCH with");
        }
    }
    const sorted_pairs p = make_pairs(size_t(1) << log, windows, c, npoints, 3);
    accumulation<HF> a(p, points.p, chunk, c, windows);
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    ec::jacobian_t<HF> first;
    std::printf("\n| kernel | ms (median of %d) | result |\n|---|---:|---|\n", reps);
    for (unsigned v = 0; v < nv; ++v) {
        std::vector<float> ms;
        for (int r = 0; r < reps + 1; ++r) {  // the first run warms up
            a.clear();
            check(cudaEventRecord(start), "cudaEventRecord");
            experiments::launch_accumulate_variant(g2, v, a.args);
            check(cudaEventRecord(stop), "cudaEventRecord");
            check(cudaEventSynchronize(stop), "kernel");
            float t = 0;
            check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
            if (r > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const auto got = a.sum();
        if (v == 0) first = got;
        const bool same = got == first;
        ok = ok && same;
        std::printf("| 2^%d pairs, %s | %.2f | %s |\n", log, experiments::accumulate_variant_name(g2, v),
                    ms[ms.size() / 2], v == 0 ? "reference" : same ? "== the first" : "MISMATCH");
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return has_flag(argc, argv, "--g2") ? run<ff::fp2_t>(argc, argv) : run<ff::fp_t>(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    }
}
