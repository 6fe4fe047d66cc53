// Streaming an MSM's points from host memory, only those its run reads: a run reads no point whose scalar is 0
// (51 % of L's and A's scalars and 48 % of B's in a 32 GiB PoRep partition, bench/gpu/porep_32GiB_census.json),
// while run_streamed (gpud/cuda/msm_run.cuh) copies every point of a segment, and streamed L, A and B are bound
// by the link (BENCHMARKS.md, an H100: ~17 ms per GiB). A copy engine moves contiguous bytes only, so copying
// the others alone takes a kernel reading the page-locked host memory in place (zero-copy) at their indices.
// Whether that pays depends on how well the link carries such reads (96-byte points, scattered), which this
// measures over one segment of --log-points G1 points (96 B each, 2^25 by default: 3 GiB):
//   copy      the whole segment by cudaMemcpyAsync, as run_streamed does;
//   all       every point by the gather kernel (zero-copy's own rate against the copy engine's);
//   sparse    a random share --density of the points (0.49 by default) by the gather kernel, each point to its
//             own index in the device buffer, where the MSM's classified indices would read it;
// the gather kernel with 1 and with 4 loads in flight per thread. Each gathered buffer is checked against the
// host's points. Prints the medians of --reps runs (5 by default).
//
//   cuzk_msm_sparse_stream [--log-points 25] [--density 0.49] [--reps 5]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/gpu/experiments/bench_check.cuh"

namespace {

constexpr unsigned WORDS = 6;  // 16-byte words per G1 point (x, y: 48 bytes each)

// Words of the |needed| points at |idx| (sorted) from |host| (mapped) to the same places in |dev|: consecutive
// threads take consecutive words of consecutive needed points, so each point is read as one 96-byte run and
// neighbouring needed points as one longer run. UNROLL: loads issued before their stores, per thread.
template <int UNROLL>
__global__ void gather_kernel(const uint4* __restrict__ host, const uint32_t* __restrict__ idx, size_t needed,
                              uint4* __restrict__ dev) {
    const size_t total = needed * WORDS, stride = size_t(gridDim.x) * blockDim.x;
    for (size_t t0 = size_t(blockIdx.x) * blockDim.x + threadIdx.x; t0 < total; t0 += stride * UNROLL) {
        uint4 v[UNROLL];
        size_t at[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const size_t t = t0 + u * stride;
            at[u] = SIZE_MAX;
            if (t < total) {
                at[u] = size_t(idx[t / WORDS]) * WORDS + t % WORDS;
                v[u] = host[at[u]];
            }
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            if (at[u] != SIZE_MAX) dev[at[u]] = v[u];
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

const char* arg(int argc, char** argv, const char* name) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    const int log_points = arg(argc, argv, "--log-points") ? std::atoi(arg(argc, argv, "--log-points")) : 25;
    const double density = arg(argc, argv, "--density") ? std::atof(arg(argc, argv, "--density")) : 0.49;
    const int reps = arg(argc, argv, "--reps") ? std::max(1, std::atoi(arg(argc, argv, "--reps"))) : 5;
    if (log_points < 10 || log_points > 28 || density <= 0 || density > 1) {
        std::fprintf(stderr, "--log-points must be in 10..28 and --density in (0, 1]\n");
        return 1;
    }
    const size_t n = size_t(1) << log_points, bytes = n * WORDS * sizeof(uint4);
    cudaDeviceProp prop{};
    BENCH_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, %d SMs; %zu points (%.2f GiB), density %.2f\n", prop.name, prop.multiProcessorCount, n,
                double(bytes) / double(1ull << 30), density);

    uint4* host = nullptr;
    BENCH_CHECK(cudaHostAlloc(&host, bytes, cudaHostAllocMapped));
    for (size_t i = 0; i < n * WORDS; ++i)
        host[i] = make_uint4(uint32_t(i), uint32_t(i >> 32) ^ 0x9e3779b9u, uint32_t(i * 2654435761u), 7u);
    uint4* host_dev = nullptr;
    BENCH_CHECK(cudaHostGetDevicePointer(&host_dev, host, 0));
    uint4* dev = nullptr;
    BENCH_CHECK(cudaMalloc(&dev, bytes));

    std::mt19937_64 rng(42);
    std::bernoulli_distribution keep(density);
    std::vector<uint32_t> sparse, every(n);
    for (size_t i = 0; i < n; ++i) {
        every[i] = uint32_t(i);
        if (keep(rng)) sparse.push_back(uint32_t(i));
    }
    uint32_t* idx = nullptr;
    BENCH_CHECK(cudaMalloc(&idx, n * sizeof(uint32_t)));
    cudaStream_t s;
    BENCH_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    BENCH_CHECK(cudaEventCreate(&e0));
    BENCH_CHECK(cudaEventCreate(&e1));
    auto time_ms = [&](auto&& launch) {
        std::vector<double> ms;
        for (int r = 0; r < reps; ++r) {
            BENCH_CHECK(cudaEventRecord(e0, s));
            launch();
            BENCH_CHECK(cudaEventRecord(e1, s));
            BENCH_CHECK(cudaEventSynchronize(e1));
            float t = 0;
            BENCH_CHECK(cudaEventElapsedTime(&t, e0, e1));
            ms.push_back(t);
        }
        return median(ms);
    };
    // The gathered points equal the host's at each of |list|'s indices (every one checked).
    std::vector<uint4> back(n * WORDS);
    auto check = [&](const std::vector<uint32_t>& list) {
        BENCH_CHECK(cudaMemcpy(back.data(), dev, bytes, cudaMemcpyDeviceToHost));
        for (uint32_t p : list)
            if (std::memcmp(&back[size_t(p) * WORDS], &host[size_t(p) * WORDS], WORDS * sizeof(uint4)) != 0) {
                std::printf("CHECK FAILED: point %u differs\n", p);
                return false;
            }
        return true;
    };

    struct row {
        std::string what;
        double ms, moved;
    };
    std::vector<row> rows;
    const double copy_ms = time_ms([&] { BENCH_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s)); });
    rows.push_back({"copy: whole segment (cudaMemcpyAsync)", copy_ms, double(bytes)});
    bool ok = check(every);
    const int blocks = prop.multiProcessorCount * 8, threads = 256;
    for (const auto* list : {&every, &sparse}) {
        BENCH_CHECK(cudaMemcpy(idx, list->data(), list->size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
        const std::string what = list == &every ? "all" : "sparse";
        for (int unroll : {1, 4}) {
            BENCH_CHECK(cudaMemset(dev, 0, bytes));
            const double ms = time_ms([&] {
                if (unroll == 1)
                    gather_kernel<1><<<blocks, threads, 0, s>>>(host_dev, idx, list->size(), dev);
                else
                    gather_kernel<4><<<blocks, threads, 0, s>>>(host_dev, idx, list->size(), dev);
                BENCH_CHECK(cudaGetLastError());
            });
            ok = check(*list) && ok;
            rows.push_back({what + ": gather kernel, " + std::to_string(unroll) + " load(s) in flight per thread", ms,
                            double(list->size()) * WORDS * sizeof(uint4)});
        }
    }
    std::printf("\n| what | ms (median of %d) | GB/s of points moved | vs the whole copy |\n|---|---:|---:|---:|\n",
                reps);
    for (const row& r : rows)
        std::printf("| %s | %.2f | %.1f | %.2f |\n", r.what.c_str(), r.ms, r.moved / r.ms / 1e6, r.ms / copy_ms);
    std::printf("%s\n", ok ? "every gathered point equals the host's" : "CHECK FAILED");
    return ok ? 0 : 1;
}
