// GPU MSM (gpud/cuda/msm.hpp) against the CPU multi_exp (common/msm) on the same points and scalars:
// G1 and G2, random, 0/1-heavy (45/45/10), edge scalars (0, 1, r - 1, +-2^k), one scalar repeated
// (a single bucket holding every point), identity and repeated points, forced window widths, G1's bucket
// sums both ways (and at the sizes where each is taken), the one-scalars' sum both ways, and points generated
// on the device. Skipped with a message where no GPU is present.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/msm/msm.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/host_pin.hpp"
#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/msm_digits.cuh"
#include "tests/support/curve_points.hpp"

using namespace cuzk;
using namespace cuzk::ec;
using cuzk::ff::fr_t;

namespace {

class CudaMsm : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        if (cuda::device_count(&why) == 0) GTEST_SKIP() << "no GPU present (" << why << "): CUDA tests skipped";
    }
};

// Subgroup points P_i = start + i step from random multiples of the generator; every 97th is the identity
// and every 89th repeats its predecessor, so buckets meet identities and doublings.
template <class F>
std::vector<affine_t<F>> make_points(const affine_t<F>& gen, size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    jacobian_t<F> start = jacobian_t<F>::from_affine(gen).mul(fr_t::random(rng));
    jacobian_t<F> step = jacobian_t<F>::from_affine(gen).mul(fr_t::random(rng));
    std::vector<jacobian_t<F>> jac(n);
    jacobian_t<F> acc = start;
    for (size_t i = 0; i < n; ++i) {
        jac[i] = acc;
        acc = acc + step;
    }
    std::vector<affine_t<F>> out(n);
    batch_to_affine(jac.data(), out.data(), n);
    for (size_t i = 1; i < n; ++i) {
        if (i % 97 == 0) out[i] = affine_t<F>::identity();
        if (i % 89 == 0) out[i] = out[i - 1];
    }
    return out;
}

enum class shape { random, porep, edge, repeated };

std::vector<fr_t> make_scalars(size_t n, shape s, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<fr_t> out(n);
    fr_t same = fr_t::random(rng);
    for (size_t i = 0; i < n; ++i) {
        switch (s) {
            case shape::random:
                out[i] = fr_t::random(rng);
                break;
            case shape::porep: {
                uint64_t u = rng() % 100;
                out[i] = u < 45 ? fr_t::zero() : u < 90 ? fr_t::one() : fr_t::random(rng);
                break;
            }
            case shape::edge: {
                unsigned k = unsigned(rng() % 255);
                ff::limbs<4> p{};
                p[k / 64] = uint64_t(1) << (k % 64);
                fr_t two_k = fr_t::from_canonical(p);
                switch (rng() % 6) {
                    case 0: out[i] = fr_t::zero(); break;
                    case 1: out[i] = fr_t::one(); break;
                    case 2: out[i] = -fr_t::one(); break;  // r - 1
                    case 3: out[i] = two_k; break;
                    case 4: out[i] = -two_k; break;
                    default: out[i] = two_k - fr_t::one(); break;
                }
                break;
            }
            case shape::repeated:
                out[i] = same;
                break;
        }
    }
    return out;
}

const char* name(shape s) {
    switch (s) {
        case shape::random: return "random";
        case shape::porep: return "porep";
        case shape::edge: return "edge";
        case shape::repeated: return "repeated";
    }
    return "?";
}

template <class F>
void check(cuda::msm_context<F>& gpu, const std::vector<affine_t<F>>& pts, size_t n, shape s, uint64_t seed,
           const cuda::msm_options& opt = {}) {
    auto sc = make_scalars(n, s, seed);
    std::span<const affine_t<F>> ps(pts.data(), n);
    jacobian_t<F> want = msm::multi_exp<F>(ps, sc);
    cuda::msm_report rep;
    jacobian_t<F> got = gpu.run(sc, &rep, opt);
    EXPECT_EQ(got, want) << "n=" << n << " shape=" << name(s) << " c=" << rep.window_bits;
    EXPECT_EQ(rep.zeros + rep.ones + rep.others, n);
}

// The bucket sums a group has: G1 both, G2 the batch-affine rounds alone (by_size and forced are the same).
template <class F>
std::vector<cuda::msm_sum> bucket_sums() {
    if (std::is_same_v<F, ff::fp_t>) return {cuda::msm_sum::by_size, cuda::msm_sum::xyzz, cuda::msm_sum::batch_affine};
    return {cuda::msm_sum::by_size};
}

}  // namespace

TEST_F(CudaMsm, G1MatchesCpuOverShapesAndSizes) {
    auto pts = make_points(g1_generator(), 1 << 16, 11);
    cuda::g1_msm_context gpu;
    gpu.upload_points(pts);
    uint64_t seed = 100;
    for (size_t n : {size_t(1), size_t(2), size_t(7), size_t(1000), size_t(4096), size_t(1) << 16}) {
        for (shape s : {shape::random, shape::porep, shape::edge, shape::repeated}) check(gpu, pts, n, s, ++seed);
    }
}

// Forced widths, with the windows split evenly over 256 bits (the default from c = 21: c and c - 1 bits) and
// all c bits wide; the report names the widest window and how many are that wide; a scratch limit of one
// window per pass keeps each pass to one width.
TEST_F(CudaMsm, G1WindowWidths) {
    auto pts = make_points(g1_generator(), 3000, 12);
    cuda::g1_msm_context gpu, limited;
    gpu.upload_points(pts);
    limited.upload_points(pts);
    limited.set_scratch_limit(1);
    uint64_t seed = 200;
    for (unsigned c : {2u, 3u, 7u, 8u, 11u, 13u, 16u, 17u, 20u, 22u}) {
        for (bool uniform : {false, true}) {
            cuda::msm_options opt;
            opt.window_bits = c;
            opt.uniform_windows = uniform;
            check(gpu, pts, pts.size(), shape::random, ++seed, opt);
            check(gpu, pts, pts.size(), shape::edge, ++seed, opt);
            check(limited, pts, pts.size(), shape::random, ++seed, opt);
            cuda::msm_report rep;
            gpu.run(make_scalars(pts.size(), shape::random, ++seed), &rep, opt);
            const auto split = cuda::window_split::for_run(c, uniform);
            EXPECT_EQ(rep.window_bits, split.c) << "c = " << c << (uniform ? " uniform" : "");
            EXPECT_EQ(rep.wide_windows, split.wide) << "c = " << c << (uniform ? " uniform" : "");
            EXPECT_EQ(rep.windows, (256 + c - 1) / c);
        }
    }
}

// Both of G1's bucket sums forced at a size where the sizes choose the XYZZ one: the CPU's results for
// random scalars and one scalar repeated (a single bucket per window holding every point), with the phases
// timed; G2's buckets have no XYZZ sum.
TEST_F(CudaMsm, G1BothBucketSumsMatchCpu) {
    auto pts = make_points(g1_generator(), 1 << 14, 14);
    cuda::g1_msm_context gpu;
    gpu.upload_points(pts);
    uint64_t seed = 250;
    for (cuda::msm_sum how : {cuda::msm_sum::by_size, cuda::msm_sum::xyzz, cuda::msm_sum::batch_affine}) {
        for (bool timing : {false, true}) {
            cuda::msm_options opt;
            opt.buckets = how;
            opt.timing = timing;
            check(gpu, pts, pts.size(), shape::random, ++seed, opt);
            check(gpu, pts, pts.size(), shape::repeated, ++seed, opt);
            cuda::msm_report rep;
            gpu.run(make_scalars(pts.size(), shape::random, ++seed), &rep, opt);
            EXPECT_EQ(rep.batch_affine, how == cuda::msm_sum::batch_affine);
        }
    }
    cuda::g2_msm_context g2;
    g2.upload_points(make_points(g2_generator(), 100, 15));
    cuda::msm_options xyzz;
    xyzz.buckets = cuda::msm_sum::xyzz;
    EXPECT_THROW(g2.run(make_scalars(100, shape::random, 1), nullptr, xyzz), std::invalid_argument);
}

// G1 on either side of the size where the bucket sum changes (msm_window.hpp, affine_runs_pay): 2^21 random
// scalars at c = 16 make 2^25 sorted pairs, 64 per bucket, and take the batch-affine rounds; 2^20 make 2^24
// pairs and take the XYZZ sum. Both the CPU's; the points made on the device.
TEST_F(CudaMsm, G1TakesEachBucketSumAtItsSize) {
    const size_t n = size_t(1) << 21;
    std::mt19937_64 rng(17);
    std::vector<g1_affine_t> seeds(2048 + 2);
    for (auto& p : seeds) p = test::random_curve_point<ff::fp_t>(rng);
    cuda::g1_msm_context gpu;
    gpu.generate_points(n, seeds);
    const auto pts = gpu.download_points();
    const auto sc = make_scalars(n, shape::random, 260);
    for (size_t count : {n, n / 2}) {
        const std::span<const fr_t> s(sc.data(), count);
        cuda::msm_report rep;
        EXPECT_EQ(gpu.run(s, &rep), msm::multi_exp<ff::fp_t>(std::span<const g1_affine_t>(pts.data(), count), s))
            << count << " scalars";
        EXPECT_EQ(rep.window_bits, 16u);
        EXPECT_EQ(rep.batch_affine, count == n) << count << " scalars";
    }
}

// Batch-affine rounds pair adjacent points of one bucket; pairs with equal x (P and P, P and -P) and the
// identity must be left to the XYZZ additions. Every point here has its negation or a copy next to it, every
// 7th is the identity, and one repeated scalar puts them all in one bucket per window; then the usual shapes,
// in one batch and, under scratch limits, in batches of a few chunks and of one (the rest of each batch
// beside the next batch's round-0 pairs), with the windows in passes.
TEST_F(CudaMsm, G1BatchAffineRoundsMatchCpu) {
    auto pts = make_points(g1_generator(), 1 << 13, 15);
    for (size_t i = 1; i < pts.size(); i += 3) {
        pts[i] = i % 2 ? pts[i - 1] : -pts[i - 1];
        if (i % 7 == 0) pts[i] = affine_t<ff::fp_t>::identity();
    }
    cuda::g1_msm_context gpu, few, one;
    for (auto* g : {&gpu, &few, &one}) g->upload_points(pts);
    few.set_scratch_limit(size_t(1) << 20);
    one.set_scratch_limit(1);
    uint64_t seed = 270;
    cuda::msm_options opt;
    opt.buckets = cuda::msm_sum::batch_affine;
    for (auto* g : {&gpu, &few, &one}) {
        for (shape s : {shape::repeated, shape::random, shape::porep, shape::edge})
            check(*g, pts, pts.size(), s, ++seed, opt);
    }
    // The per-kind kernel times (msm_report::ms_affine; G1's batches run on one stream): each kind that ran took
    // time, and together they stay within the accumulation phase they are part of.
    cuda::msm_options timed = opt;
    timed.timing = true;
    cuda::msm_report rep;
    few.run(make_scalars(pts.size(), shape::random, 2), &rep, timed);
    float sum = 0;
    for (float ms : rep.ms_affine) sum += ms;
    for (int kind = 0; kind < cuda::msm_report::AFFINE_KINDS; ++kind) EXPECT_GT(rep.ms_affine[kind], 0.f) << kind;
    EXPECT_LE(sum, rep.ms_accumulate * 1.01f + 0.01f);
}

// G2's buckets, always through the batch-affine rounds: in one batch and, under scratch limits, in batches
// of a few chunks and of one (alternating between two streams).
TEST_F(CudaMsm, G2BatchAffineRoundsMatchCpu) {
    auto pts = make_points(g2_generator(), 3000, 22);
    for (size_t i = 1; i < pts.size(); i += 5) pts[i] = -pts[i - 1];
    cuda::g2_msm_context gpu, few, one;
    for (auto* g : {&gpu, &few, &one}) g->upload_points(pts);
    few.set_scratch_limit(size_t(1) << 20);
    one.set_scratch_limit(1);
    uint64_t seed = 330;
    for (shape s : {shape::repeated, shape::random, shape::porep, shape::edge}) check(gpu, pts, pts.size(), s, ++seed);
    for (auto* g : {&few, &one}) {
        for (shape s : {shape::repeated, shape::random}) check(*g, pts, pts.size(), s, ++seed);
    }
    cuda::msm_report rep;
    gpu.run(make_scalars(pts.size(), shape::random, 1), &rep);
    EXPECT_TRUE(rep.batch_affine);
}

TEST_F(CudaMsm, G1ZeroOneOnlyAndAllZero) {
    auto pts = make_points(g1_generator(), 5000, 13);
    cuda::g1_msm_context gpu;
    gpu.upload_points(pts);
    std::vector<fr_t> sc(pts.size(), fr_t::zero());
    cuda::msm_report rep;
    EXPECT_TRUE(gpu.run(sc, &rep).is_identity());
    EXPECT_EQ(rep.zeros, sc.size());
    for (size_t i = 0; i < sc.size(); i += 2) sc[i] = fr_t::one();
    const g1_jacobian_t want = msm::multi_exp<ff::fp_t>(std::span<const g1_affine_t>(pts), sc);
    EXPECT_EQ(gpu.run(sc, &rep), want);
    EXPECT_EQ(rep.others, 0u);
    cuda::msm_options affine;  // the ones as one batch-affine bucket, no Pippenger after them
    affine.ones = cuda::msm_sum::batch_affine;
    EXPECT_EQ(gpu.run(sc, &rep, affine), want);
}

// The one-scalars' batch-affine sum forced where the sizes choose the XYZZ one (msm_options::ones): one
// chunk, a few (a short split), many (a long split over the chunks), batches of a few chunks (under a scratch
// limit), and points that must not pair (identities, repeats, negations), against the CPU and the XYZZ sum.
template <class F>
void check_ones_batch_affine(const std::vector<affine_t<F>>& pts, uint64_t seed) {
    cuda::msm_context<F> gpu, batches;
    gpu.upload_points(pts);
    batches.upload_points(pts);
    batches.set_scratch_limit(size_t(1) << 20);  // several batches, the scratch sets alternating
    cuda::msm_options affine;
    affine.ones = cuda::msm_sum::batch_affine;
    cuda::msm_options xyzz;
    xyzz.ones = cuda::msm_sum::xyzz;
    for (size_t n : {size_t(1), size_t(2), size_t(127), size_t(129), size_t(1000), pts.size()}) {
        std::vector<fr_t> ones(n, fr_t::one());
        std::span<const affine_t<F>> ps(pts.data(), n);
        const jacobian_t<F> want = msm::multi_exp<F>(ps, ones);
        cuda::msm_report rep;
        EXPECT_EQ(gpu.run(ones, &rep, affine), want) << "n=" << n;
        EXPECT_EQ(rep.ones, n);
        EXPECT_EQ(gpu.run(ones, &rep, xyzz), want) << "n=" << n << " (XYZZ)";
        EXPECT_EQ(batches.run(ones, &rep, affine), want) << "n=" << n << " under a scratch limit";
    }
    for (shape s : {shape::porep, shape::edge}) {
        check(gpu, pts, pts.size(), s, ++seed, affine);
        check(batches, pts, pts.size(), s, ++seed, affine);
    }
}

TEST_F(CudaMsm, G1OnesBatchAffineMatchesCpu) {
    auto pts = make_points(g1_generator(), 5000, 23);
    for (size_t i = 3; i < pts.size(); i += 7) pts[i] = -pts[i - 1];
    check_ones_batch_affine(pts, 500);
}

TEST_F(CudaMsm, G2OnesBatchAffineMatchesCpu) {
    auto pts = make_points(g2_generator(), 3000, 24);
    for (size_t i = 3; i < pts.size(); i += 7) pts[i] = -pts[i - 1];
    check_ones_batch_affine(pts, 600);
}

TEST_F(CudaMsm, G2MatchesCpu) {
    auto pts = make_points(g2_generator(), 4096, 21);
    cuda::g2_msm_context gpu;
    gpu.upload_points(pts);
    uint64_t seed = 300;
    for (size_t n : {size_t(3), size_t(1000), size_t(4096)}) {
        for (shape s : {shape::random, shape::porep, shape::edge, shape::repeated}) check(gpu, pts, n, s, ++seed);
    }
}

TEST_F(CudaMsm, GeneratedPointsAreTheAffineSums) {
    std::mt19937_64 rng(5);
    std::vector<g1_affine_t> seeds(2049);
    for (auto& p : seeds) p = test::random_curve_point<ff::fp_t>(rng);
    const size_t n = 3000;
    cuda::g1_msm_context gpu;
    gpu.generate_points(n, seeds);
    auto pts = gpu.download_points();
    ASSERT_EQ(pts.size(), n);
    for (size_t i = 0; i < n; i += 37) {
        g1_jacobian_t want = g1_jacobian_t::from_affine(seeds[i % 1024]) + g1_jacobian_t::from_affine(seeds[1024 + i / 1024]);
        EXPECT_EQ(g1_jacobian_t::from_affine(pts[i]), want) << "i=" << i;
    }
    check(gpu, pts, n, shape::random, 400);
}

TEST_F(CudaMsm, ErrorsAreExceptions) {
    cuda::g1_msm_context gpu;
    gpu.upload_points(make_points(g1_generator(), 10, 1));
    std::vector<fr_t> sc(11, fr_t::one());
    EXPECT_THROW(gpu.run(sc), std::invalid_argument);
    try {
        cuda::device_description(1 << 20);
        ADD_FAILURE() << "no error for a device that does not exist";
    } catch (const cuda::cuda_error& e) {
        EXPECT_NE(std::string(e.what()).find("cudaGetDeviceProperties"), std::string::npos) << e.what();
    }
}

namespace {

// Scalars read where they are in device memory (use_scalars_device; gpud's MSMs read them in the NTT slots):
// the result of uploaded ones, twice over the same memory, from an offset into the points, with the points
// streamed from host memory too; an upload afterwards replaces them.
template <class F>
void check_device_scalars(const affine_t<F>& gen, uint64_t seed) {
    const size_t n = 1500;
    const auto pts = make_points(gen, n, seed);
    const auto sc = make_scalars(n, shape::porep, seed + 1), other = make_scalars(n, shape::random, seed + 2);
    void* raw = nullptr;
    ASSERT_EQ(cudaMalloc(&raw, n * sizeof(fr_t)), cudaSuccess);
    std::unique_ptr<void, decltype(&cudaFree)> dev_memory(raw, &cudaFree);
    auto* dev = static_cast<fr_t*>(raw);
    ASSERT_EQ(cudaMemcpy(dev, sc.data(), n * sizeof(fr_t), cudaMemcpyHostToDevice), cudaSuccess);
    const std::span<const affine_t<F>> all(pts);
    const auto want = msm::multi_exp<F>(all, sc);

    cuda::msm_context<F> gpu;
    gpu.upload_points(pts);
    gpu.use_scalars_device(dev, n);
    EXPECT_EQ(gpu.run_uploaded(n), want);
    EXPECT_EQ(gpu.run_uploaded(n), want) << "read again";
    gpu.use_scalars_device(dev, n - 400);
    EXPECT_EQ(gpu.run_uploaded_range(400, n - 400),
              msm::multi_exp<F>(all.subspan(400), std::span<const fr_t>(sc).first(n - 400)))
        << "from point 400";
    gpu.upload_scalars(other);
    EXPECT_EQ(gpu.run_uploaded(n), msm::multi_exp<F>(all, other)) << "the upload replaced them";
    gpu.use_scalars_device(dev, n);
    EXPECT_THROW(gpu.run_uploaded(n + 1), std::invalid_argument) << "more than were given";

    std::vector<std::byte> packed(n * 2 * sizeof(F));
    cuda::msm_context<F>::pack_points(all, packed.data());
    cuda::msm_context<F> streamed;
    streamed.use_host_points(packed.data(), n, 512);
    streamed.use_scalars_device(dev, n);
    EXPECT_EQ(streamed.run_uploaded(n), want) << "points streamed in segments of 512";
}

// Point sets back to back in one context: each range MSM equals the CPU over that set alone.
template <class F>
void check_ranges(const affine_t<F>& gen, uint64_t seed) {
    const std::vector<size_t> sizes = {1000, 1, 3000, 0, 257};
    std::vector<std::vector<affine_t<F>>> sets;
    size_t total = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        sets.push_back(make_points(gen, sizes[i], seed + i));
        total += sizes[i];
    }
    cuda::msm_context<F> gpu;
    gpu.reserve_points(total);
    std::vector<size_t> first;
    size_t next = 0;
    for (const auto& s : sets) {
        first.push_back(next);
        gpu.upload_points_at(next, s);
        next += s.size();
    }
    EXPECT_EQ(gpu.size(), total);
    for (size_t i = 0; i < sets.size(); ++i) {
        for (shape sh : {shape::random, shape::porep}) {
            auto sc = make_scalars(sets[i].size(), sh, seed + 100 + i);
            gpu.upload_scalars(sc);
            EXPECT_EQ(gpu.run_uploaded_range(first[i], sc.size()),
                      msm::multi_exp<F>(std::span<const affine_t<F>>(sets[i]), sc))
                << "set " << i;
        }
    }
    // Past the end of the resident points: an error, and the next plain run starts from point 0 again.
    std::vector<fr_t> sc(2, fr_t::one());
    gpu.upload_scalars(sc);
    EXPECT_THROW(gpu.run_uploaded_range(total - 1, 2), std::invalid_argument);
    EXPECT_EQ(gpu.run(sc), msm::multi_exp<F>(std::span<const affine_t<F>>(sets[0].data(), 2), sc));
    EXPECT_THROW(gpu.upload_points_at(total, sets[0]), std::invalid_argument);
}

// One set of scalars against several point ranges in one run (run_uploaded_ranges: classification, digits and
// sorts shared, as gpud's L and A share the aux scalars): each range equals the CPU over its own points, for
// every shape, with the XYZZ and batch-affine accumulations, the ones summed both ways, windows in passes
// under a scratch limit, ranges that overlap or repeat, and with window multiples present or the points in
// host memory (where the ranges run one at a time); the report counts each range's scalars.
template <class F>
void check_shared_ranges(const affine_t<F>& gen, uint64_t seed, size_t n) {
    std::vector<affine_t<F>> all;
    for (int set = 0; set < 3; ++set) {
        auto pts = make_points(gen, n, seed + set);
        all.insert(all.end(), pts.begin(), pts.end());
    }
    const std::span<const affine_t<F>> everything(all);
    const std::vector<size_t> firsts = {n, 0, 2 * n, n / 3, n};  // the last repeats the first, n / 3 spans two sets
    auto want_of = [&](const std::vector<fr_t>& sc) {
        std::vector<jacobian_t<F>> want;
        for (const size_t f : firsts) want.push_back(msm::multi_exp<F>(everything.subspan(f, sc.size()), sc));
        return want;
    };
    cuda::msm_context<F> gpu, limited;
    gpu.upload_points(all);
    limited.upload_points(all);
    limited.set_scratch_limit(1);
    struct sums {
        cuda::msm_sum buckets, ones;
    };
    using S = cuda::msm_sum;
    // G2's buckets have no XYZZ sum: its ones alone go that way.
    const sums xyzz{std::is_same_v<F, ff::fp_t> ? S::xyzz : S::by_size, S::xyzz};
    for (const sums v : {sums{S::by_size, S::by_size}, xyzz, sums{S::batch_affine, S::batch_affine}}) {
        for (shape s : {shape::random, shape::porep, shape::edge, shape::repeated}) {
            const auto sc = make_scalars(n, s, ++seed);
            const auto want = want_of(sc);
            cuda::msm_options opt;
            opt.buckets = v.buckets;
            opt.ones = v.ones;
            opt.timing = true;
            for (auto* ctx : {&gpu, &limited}) {
                cuda::msm_report rep;
                ctx->upload_scalars(sc);
                const auto got = ctx->run_uploaded_ranges(firsts, n, &rep, opt);
                ASSERT_EQ(got.size(), firsts.size());
                for (size_t k = 0; k < firsts.size(); ++k)
                    EXPECT_EQ(got[k], want[k])
                        << "range " << k << " sums " << int(v.buckets) << "/" << int(v.ones) << " " << name(s)
                        << (ctx == &limited ? " under a scratch limit" : "");
                EXPECT_EQ(rep.zeros + rep.ones + rep.others, n) << "one classification for all the ranges";
                if (ctx == &limited && rep.others > 0) {
                    EXPECT_EQ(rep.passes, rep.windows);
                }
            }
        }
    }
    // Fewer scalars than points per range, a single range, none, and past the end.
    auto sc = make_scalars(100, shape::porep, ++seed);
    gpu.upload_scalars(sc);
    const size_t one_first[1] = {2 * n + 5};
    EXPECT_EQ(gpu.run_uploaded_ranges(one_first, sc.size()).front(),
              msm::multi_exp<F>(everything.subspan(2 * n + 5, sc.size()), sc));
    EXPECT_TRUE(gpu.run_uploaded_ranges({}, sc.size()).empty());
    const size_t past[2] = {0, 3 * n - 50};
    EXPECT_THROW(gpu.run_uploaded_ranges(past, sc.size()), std::invalid_argument);

    // Window multiples present, then the points streamed from host memory: the ranges one after another.
    const auto porep = make_scalars(n, shape::random, ++seed);
    const auto want = want_of(porep);
    ASSERT_EQ(gpu.precompute_window_multiples(9), 9u);
    gpu.upload_scalars(porep);
    EXPECT_EQ(gpu.run_uploaded_ranges(firsts, n), want) << "with window multiples";
    std::vector<std::byte> packed(all.size() * 2 * sizeof(F));
    cuda::msm_context<F>::pack_points(everything, packed.data());
    cuda::msm_context<F> streamed;
    streamed.use_host_points(packed.data(), all.size(), 1024);
    streamed.upload_scalars(porep);
    EXPECT_EQ(streamed.run_uploaded_ranges(firsts, n), want) << "points in host memory";
}

TEST_F(CudaMsm, RangesShareOneRunOfTheirScalars) {
    check_shared_ranges(g1_generator(), 1300, 3000);
    check_shared_ranges(g2_generator(), 1400, 1000);  // the CPU's G2 references take most of the time
}

// |pts| in the device layout use_host_points reads (msm_context::pack_points).
template <class F>
std::vector<std::byte> packed(std::span<const affine_t<F>> pts) {
    std::vector<std::byte> out(pts.size() * 2 * sizeof(F));
    cuda::msm_context<F>::pack_points(pts, out.data());
    return out;
}

// Points split between the device and host memory (use_host_points with resident points): ranges wholly
// resident, wholly in host memory and across the split each equal the CPU; resident ranges still share one
// classification; a prefetched first segment serves its range's run; the points read back whole; writes beyond
// the resident points refused.
template <class F>
void check_split_points(const affine_t<F>& gen, uint64_t seed) {
    const size_t n = 3000, resident = 1700, segment = 256;
    const auto pts = make_points(gen, n, seed);
    const std::span<const affine_t<F>> all(pts);
    const std::vector<std::byte> rest = packed(all.subspan(resident)), head = packed(all.first(resident));

    cuda::msm_context<F> gpu;
    gpu.use_host_points(rest.data(), n, segment, resident);
    EXPECT_TRUE(gpu.host_points());
    EXPECT_EQ(gpu.resident_points(), resident);
    EXPECT_EQ(gpu.size(), n);
    gpu.upload_points_at(0, all.first(1000));
    gpu.upload_packed_at(1000, head.data() + 1000 * 2 * sizeof(F), resident - 1000);
    EXPECT_THROW(gpu.upload_points_at(resident - 1, all.first(2)), std::invalid_argument) << "past the resident";
    EXPECT_THROW(gpu.upload_packed_at(resident, head.data(), 1), std::invalid_argument);

    struct range {
        size_t first, count;
        const char* what;
    };
    for (const range r : {range{0, 900, "resident"}, range{1200, 1300, "across the split"},
                          range{resident, n - resident, "in host memory"}, range{2100, 500, "host, offset"},
                          range{resident - 1, 2, "one point each side"}}) {
        for (shape sh : {shape::random, shape::porep}) {
            const auto sc = make_scalars(r.count, sh, ++seed);
            gpu.upload_scalars(sc);
            cuda::msm_report rep;
            EXPECT_EQ(gpu.run_uploaded_range(r.first, r.count, &rep), msm::multi_exp<F>(all.subspan(r.first, r.count), sc))
                << r.what;
            EXPECT_EQ(rep.zeros + rep.ones + rep.others, r.count) << r.what;
            EXPECT_EQ(rep.segments > 0, r.first + r.count > resident) << r.what;
        }
    }
    // A prefetched first segment (prefetch_range) serves the run of its range, also across the split; a streamed
    // run of another range in between drops it (it overwrote the buffer): that run and the later one both equal
    // the CPU, the later one copying its own segment; a resident range has nothing to prefetch.
    struct prefetch_case {
        range fetched, between;
        bool between_runs, used;
    };
    for (const prefetch_case c : {prefetch_case{{2100, 700, "host"}, {}, false, true},
                                  prefetch_case{{1200, 1300, "across the split"}, {}, false, true},
                                  prefetch_case{{2100, 700, "host"}, {1800, 400, "host, other"}, true, false},
                                  prefetch_case{{1800, 400, "host"}, {0, 900, "resident"}, true, true},
                                  prefetch_case{{0, 900, "resident"}, {}, false, false}}) {
        const auto sc = make_scalars(c.fetched.count, shape::random, ++seed);
        gpu.prefetch_range(c.fetched.first, c.fetched.count);
        if (c.between_runs) {
            const auto other = make_scalars(c.between.count, shape::porep, ++seed);
            gpu.upload_scalars(other);
            cuda::msm_report rep;
            EXPECT_EQ(gpu.run_uploaded_range(c.between.first, c.between.count, &rep),
                      msm::multi_exp<F>(all.subspan(c.between.first, c.between.count), other))
                << c.between.what << " after a prefetch of " << c.fetched.what;
            EXPECT_FALSE(rep.prefetched) << c.between.what;
        }
        gpu.upload_scalars(sc);
        cuda::msm_report rep;
        EXPECT_EQ(gpu.run_uploaded_range(c.fetched.first, c.fetched.count, &rep),
                  msm::multi_exp<F>(all.subspan(c.fetched.first, c.fetched.count), sc))
            << "prefetched " << c.fetched.what << (c.between_runs ? ", then " : "")
            << (c.between_runs ? c.between.what : "");
        EXPECT_EQ(rep.prefetched, c.used) << c.fetched.what;
    }
    EXPECT_THROW(gpu.prefetch_range(n - 10, 11), std::invalid_argument);

    // Two ranges of the same scalars: resident ones in one run, one across the split run apart.
    const size_t m = 600;
    const auto sc = make_scalars(m, shape::porep, ++seed);
    gpu.upload_scalars(sc);
    for (const std::vector<size_t>& firsts : {std::vector<size_t>{0, 900}, std::vector<size_t>{100, 1400}}) {
        cuda::msm_report rep;
        const auto got = gpu.run_uploaded_ranges(firsts, m, &rep);
        ASSERT_EQ(got.size(), 2u);
        for (size_t k = 0; k < 2; ++k)
            EXPECT_EQ(got[k], msm::multi_exp<F>(all.subspan(firsts[k], m), sc)) << "range from " << firsts[k];
        const bool shared = firsts[1] + m <= resident;
        EXPECT_EQ(rep.zeros + rep.ones + rep.others, shared ? m : 2 * m)
            << (shared ? "one classification for resident ranges" : "ranges across the split run apart");
    }
    EXPECT_EQ(gpu.download_points(), pts);
    // Brought back to the device whole: a plain context again.
    gpu.upload_points(pts);
    EXPECT_FALSE(gpu.host_points());
    EXPECT_EQ(gpu.resident_points(), n);
    gpu.upload_scalars(sc);
    EXPECT_EQ(gpu.run_uploaded_range(2000, m), msm::multi_exp<F>(all.subspan(2000, m), sc));
    EXPECT_THROW(gpu.use_host_points(rest.data(), n, segment, n + 1), std::invalid_argument);
}

TEST_F(CudaMsm, PointsSplitBetweenDeviceAndHostRunAsResident) {
    check_split_points(g1_generator(), 1500);
    check_split_points(g2_generator(), 1600);
}

// Sparse streaming (msm_context::set_sparse_streaming): with the host copy page-locked, segments whose scalars are
// mostly 0 get only the points their runs read, gathered from host memory in place; segments of random scalars are
// copied whole; every run equals the CPU, also after runs that left other points in the segment buffers (the
// slots of scalars 0 keep stale points, never read). Pageable host points: copied whole, still right.
template <class F>
void check_sparse_streaming(const affine_t<F>& gen, uint64_t seed) {
    const size_t n = 3000, resident = 700, segment = 256;
    const auto pts = make_points(gen, n, seed);
    const std::span<const affine_t<F>> all(pts);
    const std::vector<std::byte> rest = packed(all.subspan(resident));
    for (const bool pinned : {true, false}) {
        cuda::host_pin pin;
        if (pinned) {
            pin = cuda::host_pin(0, rest.data(), rest.size(), true);
            ASSERT_TRUE(pin.pinned()) << pin.error();
        }
        cuda::msm_context<F> gpu;
        gpu.use_host_points(rest.data(), n, segment, resident);
        gpu.upload_points_at(0, all.first(resident));
        // Pageable memory is not mapped (unless the system maps all host memory, when the gathers would read it
        // as well): what counts below is whether the run gathered exactly where the copy is mapped.
        if (pinned) {
            EXPECT_TRUE(gpu.sparse_streaming_available());
        }
        const bool mapped = gpu.sparse_streaming_available();
        gpu.set_sparse_streaming(true);
        struct run {
            size_t first, count;
            shape sh;
            bool gathered;  // some segment's points gathered (with the copy mapped)
        };
        for (const run r : {run{resident, n - resident, shape::porep, true}, run{900, 1500, shape::random, false},
                            run{600, 2000, shape::porep, true}, run{resident, 1200, shape::random, false},
                            run{1000, 1900, shape::porep, true}}) {
            const auto sc = make_scalars(r.count, r.sh, ++seed);
            gpu.upload_scalars(sc);
            cuda::msm_report rep;
            EXPECT_EQ(gpu.run_uploaded_range(r.first, r.count, &rep), msm::multi_exp<F>(all.subspan(r.first, r.count), sc))
                << name(r.sh) << " from " << r.first << (pinned ? ", pinned" : ", pageable");
            EXPECT_EQ(rep.sparse_segments > 0, mapped && r.gathered) << name(r.sh) << " from " << r.first;
            EXPECT_LE(rep.sparse_segments, rep.segments);
        }
        {
            // A run that declines the gather (msm_options::sparse_gather: one beside other kernels) copies whole.
            const auto sc = make_scalars(n - resident, shape::porep, ++seed);
            gpu.upload_scalars(sc);
            cuda::msm_report rep;
            EXPECT_EQ(gpu.run_uploaded_range(resident, n - resident, &rep, cuda::msm_options{.sparse_gather = false}),
                      msm::multi_exp<F>(all.subspan(resident), sc));
            EXPECT_EQ(rep.sparse_segments, 0u) << "declined by the run";
            EXPECT_GT(rep.segments, 0u);
        }
        gpu.set_sparse_streaming(false);
        const auto sc = make_scalars(n - resident, shape::porep, ++seed);
        gpu.upload_scalars(sc);
        cuda::msm_report rep;
        EXPECT_EQ(gpu.run_uploaded_range(resident, n - resident, &rep), msm::multi_exp<F>(all.subspan(resident), sc));
        EXPECT_EQ(rep.sparse_segments, 0u) << "off";
    }
}

TEST_F(CudaMsm, SparseStreamingGathersOnlyThePointsARunReads) {
    check_sparse_streaming(g1_generator(), 1700);
    check_sparse_streaming(g2_generator(), 1800);
}

// Precomputed window multiples (msm_context::precompute_window_multiples): every window's digits go into one
// set of buckets through the points 2^(w c) P. Checked against the CPU at several widths, with the bucket sum
// the sizes choose and each forced (G1), for a range of the resident points, and chosen by
// the cost model; the points themselves are unchanged, writing points drops the multiples, and a memory cap
// below the table's size leaves none.
template <class F>
void check_multiples(const affine_t<F>& gen, uint64_t seed, std::initializer_list<unsigned> widths) {
    auto head = make_points(gen, 300, seed);
    auto pts = make_points(gen, 4096, seed + 1);
    cuda::msm_context<F> gpu;
    gpu.reserve_points(head.size() + pts.size());
    gpu.upload_points_at(0, head);
    gpu.upload_points_at(head.size(), pts);
    EXPECT_EQ(gpu.precompute_window_multiples(8, 10 * (head.size() + pts.size()) * sizeof(affine_t<F>)), 0u);
    EXPECT_EQ(gpu.multiples_window(), 0u);
    for (unsigned c : widths) {
        ASSERT_EQ(gpu.precompute_window_multiples(c), c);
        EXPECT_EQ(gpu.multiples_window(), c);
        for (cuda::msm_sum how : bucket_sums<F>()) {
            for (shape s : {shape::random, shape::porep, shape::edge, shape::repeated}) {
                auto sc = make_scalars(pts.size(), s, ++seed);
                cuda::msm_options opt;
                opt.window_bits = c;
                opt.buckets = how;
                cuda::msm_report rep;
                gpu.upload_scalars(sc);
                EXPECT_EQ(gpu.run_uploaded_range(head.size(), sc.size(), &rep, opt),
                          msm::multi_exp<F>(std::span<const affine_t<F>>(pts), sc))
                    << "c=" << c << " sum=" << int(how) << " shape=" << name(s);
                EXPECT_EQ(rep.multiples, rep.others > 0);
            }
        }
        auto sc = make_scalars(head.size(), shape::random, ++seed);
        cuda::msm_options opt;
        opt.window_bits = c;
        cuda::msm_report rep;
        EXPECT_EQ(gpu.run(sc, &rep, opt), msm::multi_exp<F>(std::span<const affine_t<F>>(head), sc)) << "c=" << c;
        EXPECT_TRUE(rep.multiples);
        opt.use_multiples = false;
        EXPECT_EQ(gpu.run(sc, &rep, opt), msm::multi_exp<F>(std::span<const affine_t<F>>(head), sc)) << "c=" << c;
        EXPECT_FALSE(rep.multiples);
    }
    // The points are still the points.
    auto back = gpu.download_points();
    ASSERT_EQ(back.size(), head.size() + pts.size());
    for (size_t i = 0; i < pts.size(); ++i) ASSERT_EQ(back[head.size() + i], pts[i]) << i;
    // Left to the cost model: 4096 random scalars cost fewer additions through 11-bit multiples (24 windows,
    // one reduction) than with the best plain width.
    ASSERT_EQ(gpu.precompute_window_multiples(11), 11u);
    auto sc = make_scalars(pts.size(), shape::random, ++seed);
    cuda::msm_report rep;
    gpu.upload_scalars(sc);
    EXPECT_EQ(gpu.run_uploaded_range(head.size(), sc.size(), &rep),
              msm::multi_exp<F>(std::span<const affine_t<F>>(pts), sc));
    EXPECT_TRUE(rep.multiples);
    EXPECT_EQ(rep.window_bits, 11u);
    // New points drop the multiples made from the old ones.
    gpu.upload_points_at(0, head);
    EXPECT_EQ(gpu.multiples_window(), 0u);
    gpu.upload_scalars(sc);
    EXPECT_EQ(gpu.run_uploaded_range(head.size(), sc.size(), &rep),
              msm::multi_exp<F>(std::span<const affine_t<F>>(pts), sc));
    EXPECT_FALSE(rep.multiples);
    EXPECT_THROW(gpu.precompute_window_multiples(25), std::invalid_argument);
}

TEST_F(CudaMsm, WindowMultiplesMatchCpu) {
    check_multiples(g1_generator(), 700, {6u, 13u, 16u});
    check_multiples(g2_generator(), 800, {9u});
}

// A scratch limit (msm_context::set_scratch_limit) splits Pippenger's windows into passes: one window per
// pass at the smallest limit, a few at a middling one; the results stay the CPU's, with each bucket sum (the
// batch-affine rounds then run in small batches), the multiples are passed over where their one pass
// would not fit, and a context under the limit holds less scratch than one without it.
template <class F>
void check_scratch_limit(const affine_t<F>& gen, uint64_t seed) {
    auto pts = make_points(gen, 4096, seed);
    cuda::msm_context<F> unlimited, one, few;
    for (auto* g : {&unlimited, &one, &few}) g->upload_points(pts);
    one.set_scratch_limit(1);
    few.set_scratch_limit(size_t(1) << 20);
    for (cuda::msm_sum how : bucket_sums<F>()) {
        for (shape s : {shape::random, shape::porep, shape::edge, shape::repeated}) {
            auto sc = make_scalars(pts.size(), s, ++seed);
            const auto want = msm::multi_exp<F>(std::span<const affine_t<F>>(pts), sc);
            cuda::msm_options opt;
            opt.buckets = how;
            cuda::msm_report r_all, r_one, r_few;
            EXPECT_EQ(unlimited.run(sc, &r_all, opt), want) << "sum " << int(how) << " " << name(s);
            EXPECT_EQ(one.run(sc, &r_one, opt), want) << "sum " << int(how) << " " << name(s);
            EXPECT_EQ(few.run(sc, &r_few, opt), want) << "sum " << int(how) << " " << name(s);
            if (r_all.others == 0) continue;
            EXPECT_EQ(r_all.passes, r_all.wide_windows < r_all.windows ? 2u : 1u) << "one pass per window width";
            EXPECT_EQ(r_one.passes, r_one.windows) << "one window per pass at the smallest limit";
            EXPECT_GE(r_few.passes, 1u);
            EXPECT_LE(r_few.passes, r_few.windows);
        }
    }
    EXPECT_LT(one.scratch_bytes(), unlimited.scratch_bytes());
    // Multiples whose single pass does not fit the limit are not used; with no limit they are.
    ASSERT_EQ(one.precompute_window_multiples(11), 11u);
    auto sc = make_scalars(pts.size(), shape::random, ++seed);
    cuda::msm_report rep;
    EXPECT_EQ(one.run(sc, &rep), msm::multi_exp<F>(std::span<const affine_t<F>>(pts), sc));
    EXPECT_FALSE(rep.multiples);
    one.set_scratch_limit(0);
    EXPECT_EQ(one.run(sc, &rep), msm::multi_exp<F>(std::span<const affine_t<F>>(pts), sc));
    EXPECT_TRUE(rep.multiples);
    EXPECT_EQ(rep.passes, 1u);
}

// Points in host memory (use_host_points), streamed in segments: the CPU's results for every shape, for
// segments smaller than, equal to and larger than the run, over a range of the points, with a scratch limit
// too; download_points reads them back; multiples are refused; upload_points brings them to the device again.
template <class F>
void check_host_points(const affine_t<F>& gen, uint64_t seed) {
    auto head = make_points(gen, 300, seed);
    auto pts = make_points(gen, 4096, seed + 1);
    std::vector<affine_t<F>> all(head);
    all.insert(all.end(), pts.begin(), pts.end());
    std::vector<std::byte> packed(all.size() * 2 * sizeof(F));
    cuda::msm_context<F>::pack_points(all, packed.data());
    cuda::msm_context<F> gpu;
    for (size_t segment : {size_t(1000), size_t(4096), size_t(5000), size_t(97)}) {
        gpu.use_host_points(packed.data(), all.size(), segment);
        ASSERT_TRUE(gpu.host_points());
        EXPECT_EQ(gpu.size(), all.size());
        for (shape s : {shape::random, shape::porep, shape::edge, shape::repeated}) {
            auto sc = make_scalars(pts.size(), s, ++seed);
            cuda::msm_report rep;
            gpu.upload_scalars(sc);
            EXPECT_EQ(gpu.run_uploaded_range(head.size(), sc.size(), &rep),
                      msm::multi_exp<F>(std::span<const affine_t<F>>(pts), sc))
                << "segment " << segment << " " << name(s);
            EXPECT_EQ(rep.segments, (pts.size() + segment - 1) / segment);
            EXPECT_EQ(rep.zeros + rep.ones + rep.others, pts.size());
        }
        auto sc = make_scalars(head.size(), shape::random, ++seed);
        EXPECT_EQ(gpu.run(sc), msm::multi_exp<F>(std::span<const affine_t<F>>(head), sc)) << "segment " << segment;
    }
    gpu.set_scratch_limit(1);
    auto sc = make_scalars(pts.size(), shape::random, ++seed);
    cuda::msm_report rep;
    gpu.upload_scalars(sc);
    EXPECT_EQ(gpu.run_uploaded_range(head.size(), sc.size(), &rep),
              msm::multi_exp<F>(std::span<const affine_t<F>>(pts), sc));
    EXPECT_GT(rep.passes, rep.segments);
    gpu.set_scratch_limit(0);
    auto back = gpu.download_points();
    ASSERT_EQ(back.size(), all.size());
    for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(back[i], all[i]) << i;
    EXPECT_THROW(gpu.precompute_window_multiples(8), std::invalid_argument);
    EXPECT_THROW(gpu.upload_points_at(0, head), std::invalid_argument);
    EXPECT_THROW(gpu.use_host_points(packed.data(), all.size(), 0), std::invalid_argument);
    gpu.upload_points(pts);
    EXPECT_FALSE(gpu.host_points());
    gpu.upload_scalars(sc);
    EXPECT_EQ(gpu.run_uploaded(sc.size(), &rep), msm::multi_exp<F>(std::span<const affine_t<F>>(pts), sc));
    EXPECT_EQ(rep.segments, 0u);
    // The packed layout is what the device holds: downloaded packed, it equals pack_points' bytes.
    std::vector<std::byte> again(pts.size() * 2 * sizeof(F));
    gpu.download_points_packed(again.data());
    EXPECT_TRUE(std::equal(again.begin(), again.end(), packed.begin() + head.size() * 2 * sizeof(F)));
}

TEST_F(CudaMsm, HostPointsStreamedInSegments) {
    check_host_points(g1_generator(), 1100);
    check_host_points(g2_generator(), 1200);
}

// The estimate the scratch limits are planned with (host arithmetic: runs without a GPU): fewer windows per
// pass take less, more scalars more, and the 32 GiB shape's H MSM (2^27 random scalars) needs tens of GiB in
// one pass but under 16 GiB one window at a time.
TEST(CudaMsmScratchEstimate, GrowsWithWindowsPerPassAndScalars) {
    using g1 = cuda::g1_msm_context;
    using g2 = cuda::g2_msm_context;
    const size_t n = size_t(1) << 27, GiB = size_t(1) << 30;
    EXPECT_LT(g1::scratch_estimate(n, n, 1), g1::scratch_estimate(n, n, 2));
    EXPECT_LT(g1::scratch_estimate(n, n, 2), g1::scratch_estimate(n, n));
    EXPECT_EQ(g1::scratch_estimate(n, n, 100), g1::scratch_estimate(n, n));  // more than the windows: all of them
    // 2^27 random scalars take c = 22, split into 4 windows of 22 bits and 8 of 21: a pass holds at most 8.
    EXPECT_EQ(g1::scratch_estimate(n, n, 8), g1::scratch_estimate(n, n));
    EXPECT_LT(g1::scratch_estimate(n, n, 7), g1::scratch_estimate(n, n));
    EXPECT_LT(g1::scratch_estimate(n / 2, n / 2), g1::scratch_estimate(n, n));
    EXPECT_LT(g1::scratch_estimate(n, n / 10), g1::scratch_estimate(n, n));  // fewer through Pippenger
    EXPECT_GT(g1::scratch_estimate(n, n), 30 * GiB);
    EXPECT_LT(g1::scratch_estimate(n, n, 1), 16 * GiB);
    EXPECT_LT(g2::scratch_estimate(44000000, 44000000, 1), g2::scratch_estimate(44000000, 44000000));
    EXPECT_GT(g2::scratch_estimate(1000, 1000, 1), g1::scratch_estimate(1000, 1000, 1));  // larger buckets
    EXPECT_EQ(g1::scratch_estimate(1000, 0), g1::scratch_estimate(1000, 0, 1));  // no Pippenger: no windows
}

TEST_F(CudaMsm, ScratchLimitSplitsWindowsIntoPasses) {
    check_scratch_limit(g1_generator(), 900);
    check_scratch_limit(g2_generator(), 1000);
}

TEST_F(CudaMsm, ScalarsReadInPlaceFromDeviceMemory) {
    check_device_scalars(g1_generator(), 700);
    check_device_scalars(g2_generator(), 800);
}

TEST_F(CudaMsm, PointSetsBackToBackInOneContext) {
    check_ranges(g1_generator(), 500);
    check_ranges(g2_generator(), 600);
}

}  // namespace
