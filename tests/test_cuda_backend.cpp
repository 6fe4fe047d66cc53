// gpud's CUDA backend against its CPU backend: whole proofs of built-in circuits on random parameters, the
// same rng draws (r, s) for both, compared byte for byte and verified; the proofs are made with every host range
// pinned for the copies (pin_min_bytes 0) and with none (pageable copies). Also the host_pin helper itself, and
// that a work unpins its ranges whether finished or dropped. Needs a GPU; without one these tests skip with a
// message (the backend selection tests run everywhere).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <span>

#include "common/circuits/registry.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/setup.hpp"
#include "common/groth16/verifier.hpp"
#include "gpud/cpu_backend.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/host_pin.hpp"
#include "gpud/cuda/ntt.hpp"
#include "gpud/cuda_backend.hpp"
#include "support/cuda_faults.hpp"
#include "support/every_aux_in_a.hpp"

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

// The assignment of circuit |spec| (registry name), synthesized and finished.
proving_assignment synthesized(const std::string& spec) {
    auto c = circuits::make_circuit(spec);
    proving_assignment pa;
    c->synthesize(pa);
    pa.finish();
    return pa;
}

proof prove_with(gpud::proving_backend& be, const witness_view& w, const parameters& params, uint64_t seed) {
    auto work = be.prepare(w, params);
    be.run_kernels(*work);
    rng_fn rng = seeded(seed);
    return be.finish(*work, rng);
}

// Circuit |spec|'s keys, its witness and the CPU backend's proof with rng seed |seed|: what a GPU placement's
// proofs are compared with. |w| points into |pa|: neither copied nor moved.
struct cpu_reference {
    const keys& k;
    proving_assignment pa;
    witness_view w;
    uint64_t seed;
    proof want;
    cpu_reference(const std::string& spec, uint64_t rng_seed)
        : k(keys_for(spec)), pa(synthesized(spec)), w(view_of(pa)), seed(rng_seed) {
        gpud::cpu_backend cpu;
        want = prove_with(cpu, w, k.setup.params, seed);
    }
    cpu_reference(const cpu_reference&) = delete;
    cpu_reference& operator=(const cpu_reference&) = delete;
};

// |be|'s proofs of |ref|'s witness over |params| (a copy of its parameters, whose host vectors the backend may
// give back) equal the CPU's: the first, which makes the set resident, and one more on the set as it stays.
void expect_proves_as_cpu_twice(gpud::cuda_backend& be, const cpu_reference& ref, const parameters& params) {
    EXPECT_EQ(proof_to_bytes(prove_with(be, ref.w, params, ref.seed)), proof_to_bytes(ref.want));
    EXPECT_EQ(proof_to_bytes(prove_with(be, ref.w, params, ref.seed)), proof_to_bytes(ref.want))
        << "again, set resident";
}

// B_G2 on the GPU (the default) or on a CPU thread; every host range pinned for the copies (the small
// circuits here are far under the default pin_min_bytes, so the default would copy from pageable memory).
gpud::cuda_backend& gpu_backend(bool b_g2_on_gpu = true) {
    static gpud::cuda_backend on_gpu(0, {.pin_min_bytes = 0}), on_cpu(0, {.pin_min_bytes = 0, .b_g2_on_gpu = false});
    return b_g2_on_gpu ? on_gpu : on_cpu;
}

// The parameters' points in host memory, streamed to the GPU ([gpud] params_memory = "host"), B_G2 on the GPU.
gpud::cuda_backend& host_params_backend() {
    static gpud::cuda_backend be(0, {.pin_min_bytes = 0, .placement = gpud::params_placement::host});
    return be;
}

// No range pinned: every copy from pageable memory (the backend as it was before pinning).
gpud::cuda_backend& pageable_backend() {
    static gpud::cuda_backend be(0, {.pin_min_bytes = SIZE_MAX});
    return be;
}

// The backend's status counter |name| (as gpud reports it); a failure when there is none.
uint64_t counter_of(const gpud::cuda_backend& be, const std::string& name) {
    for (const auto& [n, value] : be.counters())
        if (n == name) return value;
    ADD_FAILURE() << "no " << name << " counter";
    return 0;
}

std::string stats_text(const gpud::cuda_backend::pin_stats& s) {
    return "pinned " + std::to_string(s.pinned_ranges) + " ranges / " + std::to_string(s.pinned_bytes) +
           " bytes, pageable " + std::to_string(s.pageable_ranges) + " / " + std::to_string(s.pageable_bytes) +
           ", refused " + std::to_string(s.refused_ranges) + ", unpin failures " + std::to_string(s.unpin_failures) +
           ", pinned now " + std::to_string(s.pinned_now_bytes) + ", pooled " + std::to_string(s.pooled_ranges) +
           " / " + std::to_string(s.pooled_bytes) + ", pool buffers locked " + std::to_string(s.pool_locked_new) +
           " reused " + std::to_string(s.pool_reused) + " refused " + std::to_string(s.pool_refused);
}

// What the runtime says |p| is: cudaMemoryTypeHost when registered, cudaMemoryTypeUnregistered for pageable.
cudaMemoryType memory_type(const void* p) {
    cudaPointerAttributes a{};
    EXPECT_EQ(cudaPointerGetAttributes(&a, p), cudaSuccess);
    return a.type;
}

// A witness laid out back to back inside a region registered once (as gpud registers its ring): proved
// without a registration per partition for the rows and aux, equal to the CPU backend's proof; the region
// stays registered across partitions. The A and B scalars go to page-locked buffers of the backend's pool,
// obtained for the first partition and reused by the second: no page-locking call at all in the second.
TEST(CudaBackend, WitnessInARegionRegisteredOnceNeedsNoPinPerPartition) {
    SKIP_WITHOUT_GPU();
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    const keys& k = keys_for("sha256:1");
    proving_assignment pa = synthesized("sha256:1");
    const witness_view src = view_of(pa);
    // Rows a, b, c, inputs, aux back to back, as a ring slot holds them.
    const size_t n = src.a.size(), ni = src.inputs.size(), na = src.aux.size();
    std::vector<ff::fr_t> region(3 * n + ni + na + 1024);
    ff::fr_t* at = region.data() + 512;  // not at the start of the region
    witness_view w = src;
    auto place = [&at](std::span<const ff::fr_t> from) {
        std::copy(from.begin(), from.end(), at);
        std::span<const ff::fr_t> s(at, from.size());
        at += from.size();
        return s;
    };
    w.a = place(src.a);
    w.b = place(src.b);
    w.c = place(src.c);
    w.inputs = place(src.inputs);
    w.aux = place(src.aux);
    be.register_host_region(std::as_bytes(std::span<const ff::fr_t>(region)));
    ASSERT_EQ(be.host_region_bytes(), region.size() * sizeof(ff::fr_t));
    EXPECT_EQ(memory_type(w.aux.data()), cudaMemoryTypeHost);

    gpud::cpu_backend cpu;
    for (uint64_t seed : {5u, 6u}) {
        const auto before = be.host_pin_stats();
        EXPECT_EQ(proof_to_bytes(prove_with(be, w, k.setup.params, seed)),
                  proof_to_bytes(prove_with(cpu, w, k.setup.params, seed)));
        const auto after = be.host_pin_stats();
        // Only the A and B scalars (vectors of the work) were considered for pinning in this partition: the
        // rows and aux, inside the region, were not; the scalars were in the pool's page-locked buffers.
        // (A's aux scalars only where A leaves some aux variable out: else prepare leaves them in the aux.)
        const size_t a_aux = w.a_aux_density.count() == na ? 0 : w.a_aux_density.count();
        const size_t scalars = ni + a_aux + w.b_input_density.count() + w.b_aux_density.count();
        EXPECT_EQ(after.pooled_bytes - before.pooled_bytes, scalars * sizeof(ff::fr_t)) << stats_text(after);
        EXPECT_EQ(after.pinned_ranges, before.pinned_ranges) << stats_text(after);
        EXPECT_EQ(after.pageable_ranges, before.pageable_ranges) << stats_text(after);
        EXPECT_EQ(after.pool_refused, 0u) << stats_text(after);
        if (seed == 6) {
            EXPECT_EQ(after.pool_locked_new, before.pool_locked_new) << "buffers reused: " << stats_text(after);
        }
        EXPECT_EQ(after.pinned_now_bytes, 0u) << stats_text(after);
        EXPECT_EQ(memory_type(w.a.data()), cudaMemoryTypeHost) << "the region stays registered";
    }
    be.register_host_region({});
    EXPECT_EQ(be.host_region_bytes(), 0u);
    EXPECT_EQ(memory_type(w.a.data()), cudaMemoryTypeUnregistered);
}

class CudaBackendProof : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaBackendProof, EqualsCpuBackendByteForByteAndVerifies) {
    SKIP_WITHOUT_GPU();
    const std::string spec = GetParam();
    const keys& k = keys_for(spec);
    proving_assignment pa = synthesized(spec);
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
        const proof got_pageable = prove_with(pageable_backend(), w, k.setup.params, seed);
        EXPECT_EQ(proof_to_bytes(got_pageable), proof_to_bytes(want)) << spec << " seed " << seed << ", nothing pinned";
        const proof got_host = prove_with(host_params_backend(), w, k.setup.params, seed);
        EXPECT_EQ(proof_to_bytes(got_host), proof_to_bytes(want)) << spec << " seed " << seed << ", points in host memory";
    }
    EXPECT_GT(gpu_backend().host_pin_stats().pinned_ranges, 0u) << stats_text(gpu_backend().host_pin_stats());
    EXPECT_EQ(gpu_backend().host_pin_stats().pinned_now_bytes, 0u) << stats_text(gpu_backend().host_pin_stats());
    EXPECT_EQ(pageable_backend().host_pin_stats().pinned_ranges, 0u);
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

// Where A uses every aux variable, its aux part is L's scalars and the backend runs L and A as one MSM (one
// classification and sort, two accumulations; counted as l_a_msm_shared): the proofs equal the CPU backend's
// byte for byte and verify, with the points resident and in host memory; a circuit with an aux variable
// outside A runs them apart.
TEST(CudaBackend, LAndARunAsOneMsmWhereAUsesEveryAuxVariable) {
    SKIP_WITHOUT_GPU();
    const cuzk::test::every_aux_in_a c(6000, 500, 31);
    const setup_result setup = generate_random_parameters(c, seeded(77));
    const prepared_verifying_key pvk = prepare_verifying_key(setup.params.vk);
    proving_assignment pa;
    c.synthesize(pa);
    pa.finish();
    const witness_view w = view_of(pa);
    ASSERT_EQ(w.a_aux_density.count(), w.aux.size()) << "the test circuit must put every aux variable in A";

    auto shared_count = [](const gpud::cuda_backend& be) { return counter_of(be, "l_a_msm_shared"); };
    gpud::cpu_backend cpu;
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    for (uint64_t seed : {40u, 41u}) {
        const proof want = prove_with(cpu, w, setup.params, seed);
        const proof got = prove_with(be, w, setup.params, seed);
        EXPECT_EQ(proof_to_bytes(got), proof_to_bytes(want)) << "seed " << seed;
        EXPECT_TRUE(verify_proof(pvk, got, c.public_inputs())) << "seed " << seed;
        const uint64_t before = shared_count(host_params_backend());
        EXPECT_EQ(proof_to_bytes(prove_with(host_params_backend(), w, setup.params, seed)), proof_to_bytes(want))
            << "seed " << seed << ", points in host memory";
        EXPECT_EQ(shared_count(host_params_backend()), before + 1);
    }
    EXPECT_EQ(shared_count(be), 2u);

    const keys& k = keys_for("mul:64");
    proving_assignment mul = synthesized("mul:64");
    const witness_view wm = view_of(mul);
    ASSERT_LT(wm.a_aux_density.count(), wm.aux.size());
    EXPECT_EQ(proof_to_bytes(prove_with(be, wm, k.setup.params, 3)), proof_to_bytes(prove_with(cpu, wm, k.setup.params, 3)));
    EXPECT_EQ(shared_count(be), 2u) << "mul:64 leaves an aux variable out of A: L and A run apart";
}

// Two gpud workers: a partition prepared while another holds the lock offers its B_G2 scalars, the holder's
// B_G2 thread copies them into the G2 context under its H MSM, and its row a into the NTT context's spare
// slot, and the waiting partition's kernels skip both copies. Every proof equals the CPU backend's; the
// waiting partitions have other aux values and another row a than the holder (so other B scalars and another
// H: a mix-up would show), also when the staged one is overtaken by a third partition (its B_G2 scalars are
// overwritten then, its row a is not: it uses that one) or dropped before its kernels.
TEST(CudaBackend, BG2ScalarsOfAWaitingPartitionAreCopiedUnderTheHoldersKernels) {
    SKIP_WITHOUT_GPU();
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    gpud::cpu_backend cpu;
    const std::string spec = "mul:1000";
    const parameters& params = keys_for(spec).setup.params;
    proving_assignment pa = synthesized(spec);
    const witness_view wx = view_of(pa);
    // Same shape, other values (the backends prove any assignment; satisfying it is the synthesizer's job).
    std::vector<ff::fr_t> aux_y(wx.aux.begin(), wx.aux.end()), aux_z(wx.aux.begin(), wx.aux.end());
    std::reverse(aux_y.begin(), aux_y.end());
    std::rotate(aux_z.begin(), aux_z.begin() + aux_z.size() / 3, aux_z.end());
    std::vector<ff::fr_t> a_y(wx.a.begin(), wx.a.end()), a_z(wx.a.begin(), wx.a.end());
    std::reverse(a_y.begin(), a_y.end());
    std::rotate(a_z.begin(), a_z.begin() + a_z.size() / 3, a_z.end());
    witness_view wy = wx, wz = wx;
    wy.aux = aux_y;
    wz.aux = aux_z;
    wy.a = a_y;
    wz.a = a_z;
    auto finished = [&](std::unique_ptr<gpud::partition_work>& work, uint64_t seed) {
        rng_fn rng = seeded(seed);
        return proof_to_bytes(be.finish(*work, rng));
    };
    auto want = [&](const witness_view& w, uint64_t seed) {
        return proof_to_bytes(prove_with(cpu, w, params, seed));
    };
    auto stats = [&] {
        const auto s = be.b_g2_prestage();
        return "copied " + std::to_string(s.copied) + ", used " + std::to_string(s.used) + "; row a copied " +
               std::to_string(s.row_a_copied) + ", used " + std::to_string(s.row_a_used);
    };

    // X holds the lock, Y waits.
    auto x = be.prepare(wx, params);
    auto y = be.prepare(wy, params);
    be.run_kernels(*x);
    EXPECT_EQ(be.b_g2_prestage().copied, 1u) << stats();
    EXPECT_EQ(be.b_g2_prestage().row_a_copied, 1u) << stats();
    EXPECT_EQ(finished(x, 1), want(wx, 1));
    be.run_kernels(*y);
    EXPECT_EQ(be.b_g2_prestage().used, 1u) << stats();
    EXPECT_EQ(be.b_g2_prestage().row_a_used, 1u) << stats();
    EXPECT_EQ(finished(y, 2), want(wy, 2));

    // Y's copied, then Z (a third worker) takes the lock first: Z copies its own scalars, and so does Y later.
    x = be.prepare(wx, params);
    y = be.prepare(wy, params);
    be.run_kernels(*x);
    EXPECT_EQ(be.b_g2_prestage().copied, 2u) << stats();
    auto z = be.prepare(wz, params);
    be.run_kernels(*z);
    be.run_kernels(*y);
    EXPECT_EQ(be.b_g2_prestage().copied, 2u) << "nothing was waiting during Z's kernels: " << stats();
    EXPECT_EQ(be.b_g2_prestage().used, 1u) << stats();
    EXPECT_EQ(be.b_g2_prestage().row_a_copied, 2u) << stats();
    EXPECT_EQ(be.b_g2_prestage().row_a_used, 2u) << "Z left the spare slot alone: " << stats();
    EXPECT_EQ(finished(x, 3), want(wx, 3));
    EXPECT_EQ(finished(z, 4), want(wz, 4));
    EXPECT_EQ(finished(y, 5), want(wy, 5));

    // Y's copied, then dropped unproved: the next partition (perhaps at Y's address) copies its own.
    x = be.prepare(wx, params);
    y = be.prepare(wy, params);
    be.run_kernels(*x);
    EXPECT_EQ(be.b_g2_prestage().copied, 3u) << stats();
    y.reset();
    z = be.prepare(wz, params);
    be.run_kernels(*z);
    EXPECT_EQ(be.b_g2_prestage().used, 1u) << stats();
    EXPECT_EQ(be.b_g2_prestage().row_a_copied, 3u) << stats();
    EXPECT_EQ(be.b_g2_prestage().row_a_used, 2u) << stats();
    EXPECT_EQ(finished(x, 6), want(wx, 6));
    EXPECT_EQ(finished(z, 7), want(wz, 7));

    // One worker: nothing is waiting, nothing is copied early.
    EXPECT_EQ(proof_to_bytes(prove_with(be, wy, params, 8)), want(wy, 8));
    EXPECT_EQ(be.b_g2_prestage().copied, 3u) << stats();
    // The same figures in gpud's status counters.
    std::map<std::string, uint64_t> counters;
    for (const auto& [name, value] : be.counters()) counters[name] = value;
    EXPECT_EQ(counters["b_g2_prestage_copied"], 3u);
    EXPECT_EQ(counters["b_g2_prestage_used"], 1u);
    EXPECT_EQ(counters["row_a_prestage_copied"], 3u);
    EXPECT_EQ(counters["row_a_prestage_used"], 2u);
    EXPECT_GT(counters["pinned_ranges"] + counters["pooled_ranges"], 0u);
}

// A row a staged in the spare NTT slot for a partition waiting with one parameters object is lost when the
// first partition of larger parameters takes the lock in between and the spare grows: the waiting partition
// then copies its own row a (its proof equals the CPU backend's), while its B_G2 scalars, in its own
// parameters' G2 context, are still used.
TEST(CudaBackend, ARowAStagedIsDroppedWhenTheSpareSlotGrows) {
    SKIP_WITHOUT_GPU();
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    gpud::cpu_backend cpu;
    const parameters& small = keys_for("mul:1000").setup.params;
    const parameters& large = keys_for("mul:3000").setup.params;
    proving_assignment pa = synthesized("mul:1000"), pl = synthesized("mul:3000");
    const witness_view wx = view_of(pa), wl = view_of(pl);
    ASSERT_GT(wl.a.size(), 2 * wx.a.size()) << "the larger circuit must need a larger domain";
    std::vector<ff::fr_t> a_y(wx.a.begin(), wx.a.end());
    std::reverse(a_y.begin(), a_y.end());
    witness_view wy = wx;
    wy.a = a_y;
    auto finished = [&](std::unique_ptr<gpud::partition_work>& work, uint64_t seed) {
        rng_fn rng = seeded(seed);
        return proof_to_bytes(be.finish(*work, rng));
    };
    auto want = [&](const witness_view& w, const parameters& params, uint64_t seed) {
        return proof_to_bytes(prove_with(cpu, w, params, seed));
    };

    auto x = be.prepare(wx, small);
    auto y = be.prepare(wy, small);
    be.run_kernels(*x);  // stages Y's B_G2 scalars and row a
    ASSERT_EQ(be.b_g2_prestage().row_a_copied, 1u);
    auto l = be.prepare(wl, large);
    be.run_kernels(*l);  // first partition of |large|: the spare grows to its domain
    be.run_kernels(*y);
    EXPECT_EQ(be.b_g2_prestage().row_a_used, 0u) << "Y's staged row a went with the old spare";
    EXPECT_EQ(be.b_g2_prestage().used, 1u) << "Y's B_G2 scalars stayed in its parameters' G2 context";
    EXPECT_EQ(finished(x, 1), want(wx, small, 1));
    EXPECT_EQ(finished(l, 2), want(wl, large, 2));
    EXPECT_EQ(finished(y, 3), want(wy, small, 3));
}

TEST(CudaBackend, ParametersUploadedOncePerParametersObject) {
    SKIP_WITHOUT_GPU();
    gpud::cuda_backend be(0);
    const keys& k = keys_for("mul:64");
    proving_assignment pa = synthesized("mul:64");
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

// Two resident sets proved in turn (a WinningPoSt's between PoRep partitions): each set's first prepare takes
// the kernels' mutex to make it resident, no later one does, whichever set came last. While only the last set was
// remembered, every change of set waited in prepare for the kernels running, a whole partition's (1 s at 32 GiB),
// before it could queue for the CUDA lock. The proofs stay those of the set's first partition.
TEST(CudaBackend, PreparingAResidentSetNeverWaitsForTheKernelsOfAnother) {
    SKIP_WITHOUT_GPU();
    gpud::cuda_backend be(0);
    const keys& k = keys_for("mul:64");
    proving_assignment pa = synthesized("mul:64");
    const witness_view w = view_of(pa);
    const parameters& first = k.setup.params;
    const parameters second = first;  // another object: another resident set
    auto making_resident = [&be] { return counter_of(be, "prepares_making_resident"); };
    const proof want = prove_with(be, w, first, 9);
    EXPECT_EQ(making_resident(), 1u);
    EXPECT_EQ(proof_to_bytes(prove_with(be, w, second, 9)), proof_to_bytes(want));
    EXPECT_EQ(making_resident(), 2u);
    for (int turn = 0; turn < 3; ++turn) {
        EXPECT_EQ(proof_to_bytes(prove_with(be, w, first, 9)), proof_to_bytes(want));
        EXPECT_EQ(proof_to_bytes(prove_with(be, w, second, 9)), proof_to_bytes(want));
    }
    EXPECT_EQ(making_resident(), 2u);
    EXPECT_EQ(be.resident_sets(), 2u);
    // A set forgotten is made resident again by its next prepare.
    be.forget(second);
    EXPECT_EQ(proof_to_bytes(prove_with(be, w, second, 9)), proof_to_bytes(want));
    EXPECT_EQ(making_resident(), 3u);
}

// [gpud] release_host_points: once a set's points are on the device (or packed for streaming), the pages of
// its host vectors go back to the kernel (none resident any more) while its proofs stay the CPU backend's byte for
// byte, the first partition's and a later one's; with B_G2 on the CPU its points, which that MSM reads, are kept.
// Forgetting the set restores the pages before the object is freed. Over a copy of the parameters: the CPU
// reference reads the original.
TEST(CudaBackend, HostCopyOfThePointsGivenBackOnceResidentProofsUnchanged) {
    SKIP_WITHOUT_GPU();
    const keys& k = keys_for("sha256:2");
    proving_assignment pa = synthesized("sha256:2");
    const witness_view w = view_of(pa);
    const std::vector<ff::fr_t> inputs(pa.inputs().begin() + 1, pa.inputs().end());
    gpud::cpu_backend cpu;
    const proof want = prove_with(cpu, w, k.setup.params, 31), want_later = prove_with(cpu, w, k.setup.params, 32);
    const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    // Resident pages among the whole pages of |v|.
    auto resident_pages = [page](const auto& v) {
        const auto at = reinterpret_cast<uintptr_t>(v.data());
        const uintptr_t begin = (at + page - 1) & ~(page - 1), end = (at + v.size() * sizeof(v[0])) & ~(page - 1);
        std::vector<unsigned char> in((end - begin) / page);
        EXPECT_EQ(mincore(reinterpret_cast<void*>(begin), end - begin, in.data()), 0);
        return size_t(std::count_if(in.begin(), in.end(), [](unsigned char c) { return (c & 1) != 0; }));
    };
    for (const auto placement : {gpud::params_placement::device, gpud::params_placement::host}) {
        for (const bool b_g2_on_gpu : {true, false}) {
            SCOPED_TRACE(std::string(to_string(placement)) + (b_g2_on_gpu ? ", B_G2 on the GPU" : ", B_G2 on the CPU"));
            gpud::cuda_backend be(
                0, {.pin_min_bytes = 0, .b_g2_on_gpu = b_g2_on_gpu, .placement = placement, .release_host_points = true});
            const parameters copy = k.setup.params;
            EXPECT_EQ(proof_to_bytes(prove_with(be, w, copy, 31)), proof_to_bytes(want));
            EXPECT_EQ(proof_to_bytes(prove_with(be, w, copy, 32)), proof_to_bytes(want_later));
            EXPECT_TRUE(verify_proof(k.pvk, want_later, inputs));
            EXPECT_GT(be.host_points_released_bytes(), copy.h.size() * sizeof(copy.h[0]) / 2);
            EXPECT_EQ(resident_pages(copy.h), 0u);
            EXPECT_EQ(resident_pages(copy.l), 0u);
            if (b_g2_on_gpu)
                EXPECT_EQ(resident_pages(copy.b_g2), 0u);
            else
                EXPECT_GT(resident_pages(copy.b_g2), 0u);
            be.forget(copy);  // as gpud does before freeing the set
            EXPECT_EQ(be.host_points_released_bytes(), 0u);
            EXPECT_EQ(be.resident_sets(), 0u);
        }
    }
}

// The points split between the device and host memory (params_memory = "split" on a GPU without room for them
// all; split_points_for_test stands in for the free memory): the G1 context's first points resident (l, a, b_g1,
// then h's), the rest streamed; split nowhere, inside l, inside a, inside h and after every G1 point, each proof
// equal to the CPU's, with the host vectors given back.
TEST(CudaBackend, PointsSplitBetweenDeviceAndHostProveAsTheCpu) {
    SKIP_WITHOUT_GPU();
    const cpu_reference ref("sha256:2", 41);
    const parameters& p = ref.k.setup.params;
    const size_t n_g1 = p.l.size() + p.a.size() + p.b_g1.size() + p.h.size();
    for (const size_t resident : {size_t(0), p.l.size() / 2, p.l.size() + p.a.size() / 3,
                                  p.l.size() + p.a.size() + p.b_g1.size() + p.h.size() / 2, n_g1}) {
        SCOPED_TRACE(std::to_string(resident) + " of " + std::to_string(n_g1) + " G1 points resident");
        gpud::cuda_backend be(
            0, {.pin_min_bytes = 0, .placement = gpud::params_placement::split, .release_host_points = true});
        be.split_points_for_test(resident);
        const parameters copy = p;
        expect_proves_as_cpu_twice(be, ref, copy);
        EXPECT_GT(be.host_points_released_bytes(), copy.h.size() * sizeof(copy.h[0]));
        be.forget(copy);
        EXPECT_EQ(be.resident_sets(), 0u);
    }
}

// A split set streams all its points once another big set is placed (there is no room for two splits): its
// proofs still equal the CPU's, from its host copy alone (the host vectors given back), and so do the other's.
TEST(CudaBackend, ASplitSetStreamsWholeOnceAnotherBigSetIsPlaced) {
    SKIP_WITHOUT_GPU();
    const keys& ka = keys_for("sha256:2");
    const keys& kb = keys_for("sha256:1");
    proving_assignment pa = synthesized("sha256:2"), pb = synthesized("sha256:1");
    gpud::cpu_backend cpu;
    const proof want_a = prove_with(cpu, view_of(pa), ka.setup.params, 51);
    const proof want_b = prove_with(cpu, view_of(pb), kb.setup.params, 52);
    // Sets above 2^12 count as big here (the side lane's bound).
    gpud::cuda_backend be(0, {.pin_min_bytes = 0,
                              .placement = gpud::params_placement::split,
                              .release_host_points = true,
                              .side_lane_max_log = 12});
    const parameters a = ka.setup.params, b = kb.setup.params;
    be.split_points_for_test(a.l.size() + a.a.size());
    EXPECT_EQ(proof_to_bytes(prove_with(be, view_of(pa), a, 51)), proof_to_bytes(want_a)) << "split";
    EXPECT_EQ(proof_to_bytes(prove_with(be, view_of(pb), b, 52)), proof_to_bytes(want_b)) << "the second set";
    EXPECT_EQ(proof_to_bytes(prove_with(be, view_of(pa), a, 51)), proof_to_bytes(want_a)) << "streamed whole";
    EXPECT_EQ(be.resident_sets(), 2u);
    be.forget(a);
    be.forget(b);
}

// [gpud] sparse_streaming: the points in host memory, the copy page-locked and mapped; a streamed segment whose
// scalars are mostly 0 gets only the points its run reads, gathered from the copy in place. sha256's aux values
// are mostly bits, about half of them 0: L's, A's and B's segments are gathered, H's (random coefficients) copied
// whole. The proofs equal the CPU backend's byte for byte, fully streamed and split, and the counters say which
// way the segments went.
TEST(CudaBackend, SparseStreamingProvesAsTheCpuAndGathersTheSparseSegments) {
    SKIP_WITHOUT_GPU();
    const cpu_reference ref("sha256:2", 61);
    const parameters& p = ref.k.setup.params;
    for (const auto placement : {gpud::params_placement::host, gpud::params_placement::split}) {
        SCOPED_TRACE(gpud::to_string(placement));
        gpud::cuda_backend be(0, {.pin_min_bytes = 0,
                                  .placement = placement,
                                  .release_host_points = true,
                                  .sparse_streaming = true});
        if (placement == gpud::params_placement::split) be.split_points_for_test(p.l.size() / 2);
        const parameters copy = p;
        expect_proves_as_cpu_twice(be, ref, copy);
        const uint64_t streamed = counter_of(be, "streamed_segments"), sparse = counter_of(be, "sparse_segments");
        EXPECT_GT(sparse, 0u) << streamed << " segments streamed";
        EXPECT_LT(sparse, streamed) << "H's segments are copied whole";
        be.forget(copy);
    }
    // Off (the default): every segment copied whole.
    EXPECT_EQ(proof_to_bytes(prove_with(host_params_backend(), ref.w, p, ref.seed)), proof_to_bytes(ref.want));
    EXPECT_GT(counter_of(host_params_backend(), "streamed_segments"), 0u);
    EXPECT_EQ(counter_of(host_params_backend(), "sparse_segments"), 0u);
}

TEST(CudaBackend, ParametersOfAnotherCircuitAreRejectedBeforeTheKernels) {
    SKIP_WITHOUT_GPU();
    const keys& k = keys_for("mul:64");
    proving_assignment pa = synthesized("mul:1000");
    EXPECT_THROW(gpu_backend().prepare(view_of(pa), k.setup.params), std::invalid_argument);
}

TEST(CudaBackend, FinishBeforeKernelsIsAnError) {
    SKIP_WITHOUT_GPU();
    const keys& k = keys_for("mul:64");
    proving_assignment pa = synthesized("mul:64");
    auto work = gpu_backend().prepare(view_of(pa), k.setup.params);
    rng_fn rng = seeded(1);
    EXPECT_THROW(gpu_backend().finish(*work, rng), std::logic_error);
}

// A CUDA error that leaves the context usable (an allocation too large) is no lost device: device_lost() is
// empty before and after it, and the backend goes on proving. (A sticky error would spoil the context of the
// process for every later test in it; the lost context is exercised by test_pipeline_device_failures with
// injected faults.)
TEST(CudaBackend, AWorkingDeviceIsNotLostEvenAfterANonStickyError) {
    SKIP_WITHOUT_GPU();
    auto& be = gpu_backend();
    EXPECT_EQ(be.device_lost(), "");
    void* p = nullptr;
    ASSERT_EQ(cudaMalloc(&p, size_t(1) << 60), cudaErrorMemoryAllocation);
    EXPECT_EQ(be.device_lost(), "");
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // the probe cleared the allocation's error
    const keys& k = keys_for("mul:64");
    proving_assignment pa = synthesized("mul:64");
    const proof pi = prove_with(be, view_of(pa), k.setup.params, 3);
    EXPECT_TRUE(verify_proof(k.pvk, pi, circuits::make_circuit("mul:64")->public_inputs()));
}

// A sticky error (a kernel's store to an illegal address) spoils the process's CUDA context: from then on
// device_lost() names the error, which is what makes gpud exit for a restart. In a death test's child process
// (this binary run again for this test alone), since nothing recovers the context of the process it hits.
TEST(CudaBackendDeathTest, AnIllegalAddressLosesTheDeviceAndDeviceLostNamesTheError) {
    SKIP_WITHOUT_GPU();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            gpud::cuda_backend be(0, {.pin_min_bytes = 0});
            if (!be.device_lost().empty()) std::_Exit(10);  // lost before the fault: not what is tested
            const int e = test::provoke_illegal_address(0);
            const std::string why = be.device_lost();
            std::fprintf(stderr, "wait: %s; device_lost: %s\n", cudaGetErrorName(cudaError_t(e)), why.c_str());
            std::_Exit(e == cudaErrorIllegalAddress && why.find("cudaErrorIllegalAddress") != std::string::npos ? 0
                                                                                                             : 11);
        },
        ::testing::ExitedWithCode(0), "wait: cudaErrorIllegalAddress; device_lost: cudaErrorIllegalAddress");
}

// The pinned path step by step: ranges pinned in prepare (outside any lock), still pinned through the kernels,
// unpinned by finish, and by the destructor of a work dropped before finish (after prepare, or after the
// kernels); the proofs equal the CPU backend's throughout.
TEST(CudaBackend, HostRangesPinnedByPrepareAndUnpinnedByFinishOrDrop) {
    SKIP_WITHOUT_GPU();
    for (bool b_g2_on_gpu : {true, false}) {
        SCOPED_TRACE(b_g2_on_gpu ? "B_G2 on the GPU" : "B_G2 on the CPU");
        gpud::cuda_backend be(0, {.pin_min_bytes = 0, .b_g2_on_gpu = b_g2_on_gpu});
        const keys& k = keys_for("sha256:1");
        proving_assignment pa = synthesized("sha256:1");
        const witness_view w = view_of(pa);
        gpud::cpu_backend cpu;
        const proof want = prove_with(cpu, w, k.setup.params, 42);

        auto work = be.prepare(w, k.setup.params);
        auto st = be.host_pin_stats();
        // The first range (row a) has no registered neighbour: it is pinned whatever the heap layout.
        EXPECT_GT(st.pinned_ranges, 0u) << stats_text(st);
        EXPECT_GT(st.pinned_now_bytes, 0u) << stats_text(st);
        EXPECT_EQ(st.pinned_now_bytes, st.pinned_bytes) << stats_text(st);
        be.run_kernels(*work);
        EXPECT_EQ(be.host_pin_stats().pinned_now_bytes, st.pinned_bytes) << "unpinned under the lock";
        rng_fn rng = seeded(42);
        const proof got = be.finish(*work, rng);
        EXPECT_EQ(proof_to_bytes(got), proof_to_bytes(want));
        st = be.host_pin_stats();
        EXPECT_EQ(st.pinned_now_bytes, 0u) << stats_text(st);
        EXPECT_EQ(st.unpin_failures, 0u) << stats_text(st);
        // The witness's aux (the L scalars, borrowed) is left unregistered, as it came.
        EXPECT_EQ(memory_type(w.aux.data()), cudaMemoryTypeUnregistered);
        work.reset();

        // Dropped after prepare, and after the kernels: unpinned by the destructor.
        work = be.prepare(w, k.setup.params);
        EXPECT_GT(be.host_pin_stats().pinned_now_bytes, 0u);
        work.reset();
        EXPECT_EQ(be.host_pin_stats().pinned_now_bytes, 0u) << stats_text(be.host_pin_stats());
        work = be.prepare(w, k.setup.params);
        be.run_kernels(*work);
        work.reset();
        EXPECT_EQ(be.host_pin_stats().pinned_now_bytes, 0u) << stats_text(be.host_pin_stats());
        EXPECT_EQ(memory_type(w.aux.data()), cudaMemoryTypeUnregistered);

        // The same ranges pin again afterwards (nothing left registered), and the proof is the same.
        EXPECT_EQ(proof_to_bytes(prove_with(be, w, k.setup.params, 42)), proof_to_bytes(want));
        EXPECT_EQ(be.host_pin_stats().unpin_failures, 0u);
    }
}

TEST(CudaBackend, DefaultThresholdLeavesSmallRangesPageable) {
    SKIP_WITHOUT_GPU();
    gpud::cuda_backend be(0);
    const keys& k = keys_for("mul:64");
    proving_assignment pa = synthesized("mul:64");
    const witness_view w = view_of(pa);
    gpud::cpu_backend cpu;
    EXPECT_EQ(proof_to_bytes(prove_with(be, w, k.setup.params, 3)), proof_to_bytes(prove_with(cpu, w, k.setup.params, 3)));
    const auto st = be.host_pin_stats();
    EXPECT_EQ(st.pinned_ranges, 0u) << stats_text(st);
    EXPECT_GT(st.pageable_ranges, 0u) << stats_text(st);
    EXPECT_EQ(st.refused_ranges, 0u) << stats_text(st);
}

TEST(CudaHostPin, RegistersUnregistersAndCopiesTheSameBytes) {
    SKIP_WITHOUT_GPU();
    const size_t n = size_t(1) << 21;  // 64 MiB
    std::vector<ff::fr_t> v(n);
    std::mt19937_64 g(5);
    for (auto& x : v) x = ff::fr_t::random(g);
    cuda::ntt_context ntt(0);
    std::vector<ff::fr_t> back(n);
    {
        cuda::host_pin pin(0, v.data(), n * sizeof(ff::fr_t));
        ASSERT_TRUE(pin.pinned()) << pin.error();
        EXPECT_EQ(pin.error(), "");
        EXPECT_EQ(memory_type(v.data()), cudaMemoryTypeHost);
        EXPECT_EQ(memory_type(v.data() + n - 1), cudaMemoryTypeHost);
        ntt.load(0, v);  // from registered memory
        ntt.store(0, back);
        EXPECT_TRUE(back == v);

        // Registrations may not overlap: refused quietly, the error state left clean for the next launch check.
        cuda::host_pin again(0, v.data() + 1000, 4096);
        EXPECT_FALSE(again.pinned());
        EXPECT_TRUE(again.already_registered()) << again.error();
        EXPECT_NE(again.error(), "");
        EXPECT_EQ(cudaGetLastError(), cudaSuccess);
        again.unpin();  // a no-op: it holds nothing

        // Moved: the target holds the registration, the moved-from object nothing.
        cuda::host_pin moved(std::move(pin));
        EXPECT_TRUE(moved.pinned());
        EXPECT_FALSE(pin.pinned());
        pin.unpin();
        EXPECT_EQ(memory_type(v.data()), cudaMemoryTypeHost);
        moved.unpin();
        EXPECT_FALSE(moved.pinned());
        EXPECT_EQ(memory_type(v.data()), cudaMemoryTypeUnregistered);
        moved.unpin();  // twice: nothing left to do
    }
    {
        // The destructor unregisters.
        cuda::host_pin pin(0, v.data(), n * sizeof(ff::fr_t));
        ASSERT_TRUE(pin.pinned()) << pin.error();
    }
    EXPECT_EQ(memory_type(v.data()), cudaMemoryTypeUnregistered);
    // Pageable again: the same bytes.
    std::fill(back.begin(), back.end(), ff::fr_t::zero());
    ntt.load(1, v);
    ntt.store(1, back);
    EXPECT_TRUE(back == v);
    // An empty range: nothing to pin, no error.
    cuda::host_pin none(0, v.data(), 0);
    EXPECT_FALSE(none.pinned());
    EXPECT_EQ(none.error(), "");
}

// A refused registration (no GPU here; on a GPU, a read-only mapping, which the driver may refuse to pin for
// writing) never throws, says why, and leaves no error state for the next CUDA call's check.
TEST(CudaHostPin, ARefusalIsQuietAndLeavesNoErrorState) {
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    void* ro = ::mmap(nullptr, 4 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(ro, MAP_FAILED);
    std::string why;
    const bool gpu = have_gpu(&why);
    {
        cuda::host_pin pin(0, ro, 4 * page);
        if (!gpu) {
            EXPECT_FALSE(pin.pinned());
        }
        if (!pin.pinned()) {
            EXPECT_NE(pin.error(), "");
            EXPECT_FALSE(pin.already_registered()) << pin.error();
            // Without a usable driver every call returns the initialisation error, cleared or not.
            if (gpu) {
                EXPECT_EQ(cudaGetLastError(), cudaSuccess) << pin.error();
            }
        }
        EXPECT_NO_THROW(pin.unpin());
    }
    ::munmap(ro, 4 * page);
    if (gpu) {
        // The next launch check passes: a small transform after the refusal.
        cuda::ntt_context ntt(0);
        std::vector<ff::fr_t> v(1024, ff::fr_t::one()), back(1024);
        ntt.load(0, v);
        ntt.transform_resident(0, 10, cuda::ntt_kind::forward);
        ntt.transform_resident(0, 10, cuda::ntt_kind::inverse);
        ntt.store(0, back);
        EXPECT_TRUE(back == v);
    }
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
