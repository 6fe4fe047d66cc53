// gpud's CUDA backend against its CPU backend: whole proofs of built-in circuits on random parameters, the
// same rng draws (r, s) for both, compared byte for byte and verified. Needs a GPU; without one the proof
// tests skip with a message (the backend selection tests run everywhere).
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <memory>
#include <random>

#include "common/circuits/registry.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/setup.hpp"
#include "common/groth16/verifier.hpp"
#include "gpud/cpu_backend.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda_backend.hpp"

using namespace cuzk;
using namespace cuzk::groth16;

namespace {

rng_fn seeded(uint64_t seed) {
    auto g = std::make_shared<std::mt19937_64>(seed);
    return [g] { return (*g)(); };
}

bool have_gpu(std::string* why) { return cuda::device_count(why) > 0; }

#define SKIP_WITHOUT_GPU()                                                             \
    do {                                                                               \
        std::string why_;                                                              \
        if (!have_gpu(&why_)) GTEST_SKIP() << "no CUDA GPU here (" << why_ << ")";     \
    } while (0)

struct keys {
    setup_result setup;
    prepared_verifying_key pvk;
};

// One setup per circuit for the whole suite (setup dominates the run time).
const keys& keys_for(const std::string& spec) {
    static std::map<std::string, std::unique_ptr<keys>> cache;
    auto& k = cache[spec];
    if (!k) {
        auto c = circuits::make_circuit(spec);
        k = std::make_unique<keys>(keys{generate_random_parameters(*c, seeded(std::hash<std::string>{}(spec))), {}});
        k->pvk = prepare_verifying_key(k->setup.params.vk);
    }
    return *k;
}

proof prove_with(gpud::proving_backend& be, const witness_view& w, const parameters& params, uint64_t seed) {
    auto work = be.prepare(w, params);
    be.run_kernels(*work);
    rng_fn rng = seeded(seed);
    return be.finish(*work, rng);
}

// B_G2 on the GPU (the default) or on a CPU thread.
gpud::cuda_backend& gpu_backend(bool b_g2_on_gpu = true) {
    static gpud::cuda_backend on_gpu(0, true), on_cpu(0, false);
    return b_g2_on_gpu ? on_gpu : on_cpu;
}

class CudaBackendProof : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaBackendProof, EqualsCpuBackendByteForByteAndVerifies) {
    SKIP_WITHOUT_GPU();
    const std::string spec = GetParam();
    const keys& k = keys_for(spec);
    auto c = circuits::make_circuit(spec);
    proving_assignment pa;
    c->synthesize(pa);
    pa.finish();
    const witness_view w = view_of(pa);
    const std::vector<ff::fr_t> inputs(pa.inputs().begin() + 1, pa.inputs().end());

    gpud::cpu_backend cpu;
    auto& gpu = gpu_backend();
    for (uint64_t seed : {1000u, 1001u}) {
        const proof want = prove_with(cpu, w, k.setup.params, seed);
        const proof got = prove_with(gpu, w, k.setup.params, seed);
        EXPECT_EQ(proof_to_bytes(got), proof_to_bytes(want)) << spec << " seed " << seed;
        EXPECT_TRUE(verify_proof(k.pvk, got, inputs)) << spec << " seed " << seed;
        const proof got_cpu_g2 = prove_with(gpu_backend(false), w, k.setup.params, seed);
        EXPECT_EQ(proof_to_bytes(got_cpu_g2), proof_to_bytes(want)) << spec << " seed " << seed << ", B_G2 on the CPU";
    }
    // Different r, s: a different proof, still valid.
    const proof a = prove_with(gpu, w, k.setup.params, 7), b = prove_with(gpu, w, k.setup.params, 8);
    EXPECT_NE(proof_to_bytes(a), proof_to_bytes(b));
    EXPECT_TRUE(verify_proof(k.pvk, b, inputs));
}

INSTANTIATE_TEST_SUITE_P(Circuits, CudaBackendProof,
                         ::testing::Values("mul:1", "mul:64", "mul:1000", "sha256:1", "sha256:2"),
                         [](const auto& info) {
                             std::string s = info.param;
                             for (auto& ch : s)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return s;
                         });

TEST(CudaBackend, ParametersUploadedOncePerParametersObject) {
    SKIP_WITHOUT_GPU();
    gpud::cuda_backend be(0);
    const keys& k = keys_for("mul:64");
    auto c = circuits::make_circuit("mul:64");
    proving_assignment pa;
    c->synthesize(pa);
    pa.finish();
    const witness_view w = view_of(pa);
    EXPECT_EQ(be.resident_sets(), 0u);
    const proof p1 = prove_with(be, w, k.setup.params, 5);
    EXPECT_EQ(be.resident_sets(), 1u);
    const size_t bytes = be.resident_bytes();
    const auto& p = k.setup.params;
    EXPECT_EQ(bytes, (p.h.size() + p.l.size() + p.a.size() + p.b_g1.size()) * sizeof(ec::g1_affine_t::x) * 2 +
                         p.b_g2.size() * sizeof(ec::g2_affine_t::x) * 2);
    EXPECT_EQ(proof_to_bytes(prove_with(be, w, p, 5)), proof_to_bytes(p1));
    EXPECT_EQ(be.resident_sets(), 1u);

    // A copy is another parameters object: its own resident set, the same proof.
    const parameters copy = p;
    EXPECT_EQ(proof_to_bytes(prove_with(be, w, copy, 5)), proof_to_bytes(p1));
    EXPECT_EQ(be.resident_sets(), 2u);
}

TEST(CudaBackend, ParametersOfAnotherCircuitAreRejectedBeforeTheKernels) {
    SKIP_WITHOUT_GPU();
    const keys& k = keys_for("mul:64");
    auto c = circuits::make_circuit("mul:1000");
    proving_assignment pa;
    c->synthesize(pa);
    pa.finish();
    EXPECT_THROW(gpu_backend().prepare(view_of(pa), k.setup.params), std::invalid_argument);
}

TEST(CudaBackend, FinishBeforeKernelsIsAnError) {
    SKIP_WITHOUT_GPU();
    const keys& k = keys_for("mul:64");
    auto c = circuits::make_circuit("mul:64");
    proving_assignment pa;
    c->synthesize(pa);
    pa.finish();
    auto work = gpu_backend().prepare(view_of(pa), k.setup.params);
    rng_fn rng = seeded(1);
    EXPECT_THROW(gpu_backend().finish(*work, rng), std::logic_error);
}

// These run with or without a GPU.
TEST(CudaBackendSelection, AutoPicksCudaExactlyWhenAGpuIsPresent) {
    std::string why;
    const bool gpu = have_gpu(&why);
    auto be = gpud::make_backend("auto", 0);
    EXPECT_EQ(be->name(), gpu ? "cuda" : "cpu") << why;
    EXPECT_EQ(gpud::make_backend("cpu", 0)->name(), "cpu");
}

TEST(CudaBackendSelection, AMissingGpuIsACudaError) {
    std::string why;
    const int n = cuda::device_count(&why);
    EXPECT_THROW(gpud::make_backend("cuda", n + 3), cuda::cuda_error);
    if (n == 0) {
        EXPECT_THROW(gpud::make_backend("cuda", 0), cuda::cuda_error);
    }
    EXPECT_THROW(gpud::make_backend("opencl", 0), std::exception);
}

}  // namespace
