// GPU field-arithmetic benchmark: the throughput of one Fp (and Fr) Montgomery multiplication under the
// production schedule (paired, gpud/cuda/field.cuh) and the others of field_schedules.cuh (sos, hybrid,
// karatsuba; called or inlined), and of the MSM's
// bucket step (an XYZZ bucket plus an affine point, 8M + 2S) built on each, with the registers, spills
// and blocks per SM the compiler gave each kernel. It tells which schedule the MSM and NTT should use.
//
// Every thread runs one dependent chain (x = x * y, or acc += p), as the MSM's accumulation does; a full
// device of threads measures throughput at the occupancy each kernel reaches. Before timing, every
// schedule's outputs are compared with the sos schedule's, and the sos chains of the first threads with
// the CPU field (common/ff), so a wrong schedule fails the run (exit 1). The bucket step's inputs are
// random field elements, not curve points: the formulas' cost does not depend on it, and the schedules
// are compared with each other on the same inputs.
//
//   cuzk_field_bench [--iters 256] [--reps 5]      (built with -DCUZK_BUILD_EXPERIMENTS=ON)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/gpu/experiments/bench_check.cuh"
#include "bench/gpu/experiments/field_bench_cpu.hpp"
#include "bench/gpu/experiments/field_schedules.cuh"
#include "common/ff/bls12_381.hpp"
#include "gpud/cuda/curve.cuh"

using namespace cuzk;

namespace {

constexpr unsigned THREADS = 128;

template <class F>
__global__ void __launch_bounds__(THREADS) mul_chain_kernel(const F* __restrict__ x0, const F* __restrict__ y0,
                                                            F* out, int iters) {
    const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    F x = x0[t];
    const F y = y0[t];
    for (int i = 0; i < iters; ++i) x = x * y;
    out[t] = x;
}

template <class F>
__global__ void __launch_bounds__(THREADS) bucket_chain_kernel(const cuda::dev_affine<F>* __restrict__ pts,
                                                               unsigned mask, ec::xyzz_t<F>* out, int iters) {
    const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    ec::xyzz_t<F> acc = ec::xyzz_t<F>::identity();
    for (int i = 0; i < iters; ++i) acc.accumulate(cuda::load_affine(pts + ((t * 7 + size_t(i)) & mask)));
    out[t] = acc;
}

// Issue rates of the two multiply pipes the schedules use, alone and together: CHAINS independent chains per
// thread of 64-bit integer multiply-adds (mad.wide.u32, which ptxas emits as IMAD.WIDE.U32) and of double
// fused multiply-adds (DFMA). Mixed runs both kinds in one loop: if the pipes are independent it takes as
// long as the slower kind alone, if they share issue or a unit it takes the sum.
constexpr int CHAINS = 8;
template <bool Int, bool Fp64>
__global__ void __launch_bounds__(THREADS) pipe_kernel(uint32_t seed, int iters, uint64_t* out_i, double* out_d) {
    const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    uint64_t ai[CHAINS];
    double ad[CHAINS];
    const uint32_t m = seed | 1u;
    const double dm = 1.0 + double(seed & 0xff) * 1e-9, dc = double(seed & 0xf) * 1e-3;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) {
        ai[c] = t + c;
        ad[c] = double(t + c);
    }
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) {
            if constexpr (Int) {
                uint64_t r;
                asm volatile("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r) : "r"(uint32_t(ai[c])), "r"(m), "l"(ai[c]));
                ai[c] = r;
            }
            if constexpr (Fp64) ad[c] = __fma_rn(ad[c], dm, dc);
        }
    }
    uint64_t si = 0;
    double sd = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) {
        si += ai[c];
        sd += ad[c];
    }
    out_i[t] = si;
    out_d[t] = sd;
}

struct result {
    std::string what;
    int regs;
    size_t local_bytes;
    int blocks_per_sm;
    double ms;
    double rate;  // operations per second
};
std::vector<result> results;

int sms() {
    int dev = 0, n = 0;
    BENCH_CHECK(cudaGetDevice(&dev));
    BENCH_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
}

// Best of |reps| timed launches after one warm-up.
template <class Launch>
double best_ms(int reps, Launch launch) {
    cudaEvent_t a, b;
    BENCH_CHECK(cudaEventCreate(&a));
    BENCH_CHECK(cudaEventCreate(&b));
    launch();
    BENCH_CHECK(cudaGetLastError());
    BENCH_CHECK(cudaDeviceSynchronize());
    float best = 1e30f;
    for (int r = 0; r < reps; ++r) {
        BENCH_CHECK(cudaEventRecord(a));
        launch();
        BENCH_CHECK(cudaEventRecord(b));
        BENCH_CHECK(cudaEventSynchronize(b));
        BENCH_CHECK(cudaGetLastError());
        float ms = 0;
        BENCH_CHECK(cudaEventElapsedTime(&ms, a, b));
        best = std::min(best, ms);
    }
    BENCH_CHECK(cudaEventDestroy(a));
    BENCH_CHECK(cudaEventDestroy(b));
    return best;
}

template <class Kernel>
void attributes(Kernel k, int& regs, size_t& local, int& blocks) {
    cudaFuncAttributes fa{};
    BENCH_CHECK(cudaFuncGetAttributes(&fa, k));
    regs = fa.numRegs;
    local = fa.localSizeBytes;
    BENCH_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, THREADS, 0));
}

template <class D>
D* upload(const std::vector<D>& h) {
    D* d = nullptr;
    BENCH_CHECK(cudaMalloc(&d, h.size() * sizeof(D)));
    BENCH_CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(D), cudaMemcpyHostToDevice));
    return d;
}
template <class D>
std::vector<D> download(const D* d, size_t n) {
    std::vector<D> h(n);
    BENCH_CHECK(cudaMemcpy(h.data(), d, n * sizeof(D), cudaMemcpyDeviceToHost));
    return h;
}

bool failed = false;

// Times x = x * y chains with field type F (host field H) over |threads| threads; returns the outputs.
template <class F, class H>
std::vector<F> time_mul(const char* name, const std::vector<F>& xs, const std::vector<F>& ys, int iters, int reps) {
    const size_t n = xs.size();
    F* dx = upload(xs);
    F* dy = upload(ys);
    F* dout = nullptr;
    BENCH_CHECK(cudaMalloc(&dout, n * sizeof(F)));
    result r{name, 0, 0, 0, 0, 0};
    attributes(mul_chain_kernel<F>, r.regs, r.local_bytes, r.blocks_per_sm);
    r.ms = best_ms(reps, [&] { mul_chain_kernel<F><<<unsigned(n / THREADS), THREADS>>>(dx, dy, dout, iters); });
    r.rate = double(n) * iters / (r.ms * 1e-3);
    results.push_back(r);
    auto out = download(dout, n);
    BENCH_CHECK(cudaFree(dx));
    BENCH_CHECK(cudaFree(dy));
    BENCH_CHECK(cudaFree(dout));
    return out;
}

template <class F>
std::vector<ec::xyzz_t<F>> time_bucket(const char* name, const std::vector<cuda::dev_affine<F>>& pts, size_t threads,
                                       int iters, int reps) {
    auto* dp = upload(pts);
    ec::xyzz_t<F>* dout = nullptr;
    BENCH_CHECK(cudaMalloc(&dout, threads * sizeof(ec::xyzz_t<F>)));
    result r{name, 0, 0, 0, 0, 0};
    attributes(bucket_chain_kernel<F>, r.regs, r.local_bytes, r.blocks_per_sm);
    const unsigned mask = unsigned(pts.size() - 1);
    r.ms = best_ms(reps, [&] {
        bucket_chain_kernel<F><<<unsigned(threads / THREADS), THREADS>>>(dp, mask, dout, iters);
    });
    r.rate = double(threads) * iters / (r.ms * 1e-3);
    results.push_back(r);
    auto out = download(dout, threads);
    BENCH_CHECK(cudaFree(dp));
    BENCH_CHECK(cudaFree(dout));
    return out;
}

template <class A, class B>
void expect_same(const char* what, const std::vector<A>& a, const std::vector<B>& b) {
    static_assert(sizeof(A) == sizeof(B));
    if (a.size() != b.size() || std::memcmp(a.data(), b.data(), a.size() * sizeof(A)) != 0) {
        std::printf("MISMATCH: %s differs from the sos schedule\n", what);
        failed = true;
    }
}

template <class D>
std::vector<D> random_elements(bench::field_kind f, size_t n, uint64_t seed) {
    std::vector<D> v(n);
    bench::random_field_elements(f, n, seed, v.data());
    return v;
}

// The first |k| chains recomputed with the CPU field.
template <class D>
void check_against_cpu(bench::field_kind f, const char* what, const std::vector<D>& xs, const std::vector<D>& ys,
                       const std::vector<D>& out, int iters, size_t k) {
    const size_t t = bench::first_chain_mismatch(f, xs.data(), ys.data(), out.data(), k, iters);
    if (t != k) {
        std::printf("MISMATCH: %s chain %zu differs from the CPU field\n", what, t);
        failed = true;
    }
}

namespace ex = cuda::experiments;
using cuda::paired_schedule;
template <bool Inline, class Schedule>
using fp_as = cuda::dev_field<ff::fp_t, Inline, Schedule>;
template <bool Inline, class Schedule>
using fr_as = cuda::dev_field<ff::fr_t, Inline, Schedule>;

// The same elements as another schedule's type (all schedules share one layout).
template <class T, class S>
std::vector<T> same_layout(const std::vector<S>& v) {
    static_assert(sizeof(T) == sizeof(S));
    std::vector<T> r(v.size());
    std::memcpy(static_cast<void*>(r.data()), v.data(), v.size() * sizeof(T));
    return r;
}

// Times the chains under schedule T and checks its outputs against the reference schedule's.
template <class T, class H, class S>
void time_mul_variant(const char* name, const std::vector<S>& xs, const std::vector<S>& ys,
                      const std::vector<S>& ref, int iters, int reps) {
    expect_same(name, time_mul<T, H>(name, same_layout<T>(xs), same_layout<T>(ys), iters, reps), ref);
}

int arg_int(int argc, char** argv, const char* name, int def) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
    return def;
}

}  // namespace

int main(int argc, char** argv) {
    const int iters = arg_int(argc, argv, "--iters", 256);
    const int reps = arg_int(argc, argv, "--reps", 5);
    // Eight waves of the most resident blocks any kernel here reaches (16 blocks of 128 threads per SM).
    const size_t threads = size_t(sms()) * 16 * THREADS * 8;
    std::printf("threads %zu, %d dependent operations each, best of %d\n", threads, iters, reps);

    {
        using fp_sos = cuda::dev_field<ff::fp_t, false, ex::sos>;
        const auto xs = random_elements<fp_sos>(bench::field_kind::fp, threads, 1);
        const auto ys = random_elements<fp_sos>(bench::field_kind::fp, threads, 2);
        auto ref = time_mul<fp_sos, ff::fp_t>("Fp mul, sos, called", xs, ys, iters, reps);
        check_against_cpu(bench::field_kind::fp, "Fp mul sos", xs, ys, ref, iters, 64);
        time_mul_variant<fp_as<true, ex::sos>, ff::fp_t>("Fp mul, sos, inlined", xs, ys, ref, iters, reps);
        time_mul_variant<fp_as<false, paired_schedule>, ff::fp_t>("Fp mul, paired, called", xs, ys, ref, iters, reps);
        time_mul_variant<fp_as<true, paired_schedule>, ff::fp_t>("Fp mul, paired, inlined", xs, ys, ref, iters, reps);
        time_mul_variant<fp_as<false, ex::hybrid>, ff::fp_t>("Fp mul, hybrid, called", xs, ys, ref, iters, reps);
        time_mul_variant<fp_as<true, ex::hybrid>, ff::fp_t>("Fp mul, hybrid, inlined", xs, ys, ref, iters, reps);
        time_mul_variant<fp_as<false, ex::karatsuba>, ff::fp_t>("Fp mul, karatsuba, called", xs, ys, ref, iters, reps);
        time_mul_variant<fp_as<true, ex::karatsuba>, ff::fp_t>("Fp mul, karatsuba, inlined", xs, ys, ref, iters, reps);
    }
    {
        using fr_sos = cuda::dev_field<ff::fr_t, true, ex::sos>;
        const auto xs = random_elements<fr_sos>(bench::field_kind::fr, threads, 3);
        const auto ys = random_elements<fr_sos>(bench::field_kind::fr, threads, 4);
        auto ref = time_mul<fr_sos, ff::fr_t>("Fr mul, sos, inlined", xs, ys, iters, reps);
        check_against_cpu(bench::field_kind::fr, "Fr mul sos", xs, ys, ref, iters, 64);
        time_mul_variant<fr_as<true, paired_schedule>, ff::fr_t>("Fr mul, paired, inlined", xs, ys, ref, iters, reps);
        time_mul_variant<fr_as<true, ex::hybrid>, ff::fr_t>("Fr mul, hybrid, inlined", xs, ys, ref, iters, reps);
        time_mul_variant<fr_as<true, ex::karatsuba>, ff::fr_t>("Fr mul, karatsuba, inlined", xs, ys, ref, iters, reps);
    }
    {
        // 4096 random "points", read through the cache as the MSM's gathers are.
        using fp_sos = cuda::dev_field<ff::fp_t, false, ex::sos>;
        const size_t np = 4096;
        const auto coords = random_elements<fp_sos>(bench::field_kind::fp, 2 * np, 5);
        auto points = [&](auto tag) {
            using T = decltype(tag);
            std::vector<cuda::dev_affine<T>> p(np);
            std::memcpy(static_cast<void*>(p.data()), coords.data(), np * sizeof p[0]);
            return p;
        };
        const size_t bthreads = threads / 4;
        const int biters = std::max(1, iters / 4);
        auto ref = time_bucket<fp_sos>("G1 bucket += affine, sos, called", points(fp_sos{}), bthreads, biters, reps);
#define BUCKET_VARIANT(INLINE, KIND, NAME)                                                    \
    {                                                                                         \
        using T = cuda::dev_field<ff::fp_t, INLINE, KIND>;                                    \
        expect_same(NAME, time_bucket<T>(NAME, points(T{}), bthreads, biters, reps), ref);    \
    }
        BUCKET_VARIANT(false, paired_schedule, "G1 bucket += affine, paired, called")
        BUCKET_VARIANT(true, paired_schedule, "G1 bucket += affine, paired, inlined")
        BUCKET_VARIANT(false, ex::hybrid, "G1 bucket += affine, hybrid, called")
        BUCKET_VARIANT(true, ex::hybrid, "G1 bucket += affine, hybrid, inlined")
        BUCKET_VARIANT(false, ex::karatsuba, "G1 bucket += affine, karatsuba, called")
        BUCKET_VARIANT(true, ex::karatsuba, "G1 bucket += affine, karatsuba, inlined")
#undef BUCKET_VARIANT
    }

    {
        // Pipe rates in operations per SM per clock (the SM clock the device reports as its maximum).
        int dev = 0, khz = 0;
        BENCH_CHECK(cudaGetDevice(&dev));
        BENCH_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
        uint64_t* oi = nullptr;
        double* od = nullptr;
        BENCH_CHECK(cudaMalloc(&oi, threads * sizeof(uint64_t)));
        BENCH_CHECK(cudaMalloc(&od, threads * sizeof(double)));
        const int piters = iters * 16;
        auto pipe = [&](const char* name, auto kernel, int kinds) {
            result r{name, 0, 0, 0, 0, 0};
            attributes(kernel, r.regs, r.local_bytes, r.blocks_per_sm);
            r.ms = best_ms(reps, [&] { kernel<<<unsigned(threads / THREADS), THREADS>>>(12345u, piters, oi, od); });
            r.rate = double(threads) * piters * CHAINS * kinds / (r.ms * 1e-3);
            results.push_back(r);
            std::printf("%s: %.1f operations per SM per clock (%d SMs at %d MHz)\n", name,
                        r.rate / (double(sms()) * khz * 1e3), sms(), khz / 1000);
        };
        pipe("pipe: IMAD.WIDE alone", pipe_kernel<true, false>, 1);
        pipe("pipe: DFMA alone", pipe_kernel<false, true>, 1);
        pipe("pipe: IMAD.WIDE and DFMA mixed (both counted)", pipe_kernel<true, true>, 2);
        BENCH_CHECK(cudaFree(oi));
        BENCH_CHECK(cudaFree(od));
    }

    std::printf("\n| operation | registers | local bytes | blocks/SM | time | rate |\n|---|---:|---:|---:|---:|---:|\n");
    for (const auto& r : results)
        std::printf("| %s | %d | %zu | %d | %.2f ms | %.2f G/s |\n", r.what.c_str(), r.regs, r.local_bytes,
                    r.blocks_per_sm, r.ms, r.rate / 1e9);
    if (failed) {
        std::printf("FAILED: a schedule disagreed (see MISMATCH above)\n");
        return 1;
    }
    std::printf("all schedules agree with each other and with the CPU field\n");
    return 0;
}
