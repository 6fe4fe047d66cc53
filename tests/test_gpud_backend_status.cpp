// What a proving backend tells gpud's status and what it lets go: the CPU backend has no device and pins
// nothing; the CUDA backend names its device and its memory, counts the page-locked memory it holds (the
// parameters' host copy included where streamed), and forget() frees a parameters set's copy, which the next
// partition with those parameters uploads again, proving the same. The CUDA tests skip without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "common/circuits/registry.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/setup.hpp"
#include "gpud/cpu_backend.hpp"
#ifdef CUZK_GPUD_HAVE_CUDA
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda_backend.hpp"
#endif

using namespace cuzk;

namespace {

groth16::rng_fn seeded(std::uint64_t seed) {
    auto g = std::make_shared<std::mt19937_64>(seed);
    return [g] { return (*g)(); };
}

struct mul_circuit {
    groth16::setup_result setup;
    groth16::proving_assignment assignment;
    explicit mul_circuit(const std::string& spec) {
        auto c = circuits::make_circuit(spec);
        setup = groth16::generate_random_parameters(*c, seeded(7));
        c->synthesize(assignment);
        assignment.finish();
    }
};

auto prove(gpud::proving_backend& be, const groth16::witness_view& w,
                                const groth16::parameters& params) {
    auto work = be.prepare(w, params);
    be.run_kernels(*work);
    auto rng = seeded(11);
    return groth16::proof_to_bytes(be.finish(*work, rng));
}

}  // namespace

TEST(GpudBackendStatus, TheCpuBackendHasNoDeviceAndPinsNothing) {
    gpud::cpu_backend be;
    EXPECT_FALSE(be.device().has_value());
    EXPECT_EQ(be.pinned().bytes, 0u);
    EXPECT_EQ(be.pinned().limit_bytes, 0u);
    const mul_circuit k("mul:16");
    const auto w = groth16::view_of(k.assignment);
    const auto before = prove(be, w, k.setup.params);
    be.forget(k.setup.params);  // nothing kept: nothing changes
    EXPECT_EQ(prove(be, w, k.setup.params), before);
}

#ifdef CUZK_GPUD_HAVE_CUDA

#define SKIP_WITHOUT_GPU()                                                                  \
    do {                                                                                    \
        std::string why_;                                                                   \
        if (cuda::device_count(&why_) == 0) GTEST_SKIP() << "no CUDA GPU here (" << why_ << ")"; \
    } while (0)

TEST(GpudBackendStatus, TheCudaBackendNamesItsDeviceAndItsMemory) {
    SKIP_WITHOUT_GPU();
    gpud::cuda_backend be(0);
    const auto d = be.device();
    ASSERT_TRUE(d.has_value());
    EXPECT_FALSE(d->name.empty());
    EXPECT_NE(cuda::device_description(0).find(d->name), std::string::npos) << d->name;
    EXPECT_GT(d->total_bytes, 0u);
    EXPECT_GT(d->free_bytes, 0u);
    EXPECT_LE(d->free_bytes, d->total_bytes);
}

TEST(GpudBackendStatus, ForgetFreesTheResidentSetAndTheNextPartitionUploadsItAgain) {
    SKIP_WITHOUT_GPU();
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    const mul_circuit k("mul:1024");
    const auto w = groth16::view_of(k.assignment);
    const auto first = prove(be, w, k.setup.params);
    ASSERT_EQ(be.resident_sets(), 1u);
    const auto free_with = be.device()->free_bytes;
    be.forget(k.setup.params);
    EXPECT_EQ(be.resident_sets(), 0u);
    EXPECT_EQ(be.resident_bytes(), 0u);
    EXPECT_GE(be.device()->free_bytes, free_with);
    be.forget(k.setup.params);  // not resident: nothing to do
    EXPECT_EQ(prove(be, w, k.setup.params), first);
    EXPECT_EQ(be.resident_sets(), 1u);
}

TEST(GpudBackendStatus, PinnedMemoryCountsTheParametersHostCopyUntilForgotten) {
    SKIP_WITHOUT_GPU();
    const std::size_t cache = std::size_t(64) << 20;
    gpud::cuda_backend be(0, {.pinned_cache_bytes = cache, .pin_min_bytes = 0, .placement = gpud::params_placement::host});
    EXPECT_EQ(be.pinned().limit_bytes, cache);
    const mul_circuit k("mul:1024");
    const auto w = groth16::view_of(k.assignment);
    (void)prove(be, w, k.setup.params);
    const auto with = be.pinned().bytes, points = std::uint64_t(be.resident_bytes());
    EXPECT_GE(with, points) << "the points' page-locked host copy is not counted";
    be.forget(k.setup.params);
    EXPECT_LE(be.pinned().bytes + points, with);
    EXPECT_EQ(be.resident_sets(), 0u);
}

#endif
