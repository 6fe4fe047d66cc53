// gpud's CUDA backend proving compact partitions (prepare_compact: inputs in full, aux compact, the circuit's R1CS
// matrices) on the device, against the CPU backend, which expands them on the host: the same rng draws give the
// same proof byte for byte (so the same kernel results), and it verifies. Built-in circuits, a circuit with every
// aux variable in A (L and A as one MSM), a 2 KiB PoRep partition; laid out as a ring slot holds them and
// registered once, or in separate vectors; points resident or in host memory; B_G2 on the CPU (the host path).
// Compact and full-witness partitions interleaved on one backend, the B_G2 prestage among them; forget() frees
// the matrices and the compact witness's buffers. prepare_compact's checks run with or without a GPU; the rest
// skips without one.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/circuits/registry.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/setup.hpp"
#include "common/groth16/verifier.hpp"
#include "common/util/errors.hpp"
#include "common/witness/compact_vector_builder.hpp"
#include "common/witness/compact_vector_expansion.hpp"
#include "common/witness/compact_vector_serialization.hpp"
#include "gpud/cpu_backend.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda_backend.hpp"
#include "gpud/cuda_backend/compact_checks.hpp"
#include "support/every_aux_in_a.hpp"
#include "support/r1cs_cases.hpp"

using namespace cuzk;
using namespace cuzk::groth16;

namespace {

rng_fn seeded(uint64_t seed) {
    auto g = std::make_shared<std::mt19937_64>(seed);
    return [g] { return (*g)(); };
}

#define SKIP_WITHOUT_GPU()                                                                \
    do {                                                                                  \
        std::string why_;                                                                 \
        if (cuda::device_count(&why_) == 0) GTEST_SKIP() << "no CUDA GPU here (" << why_ << ")"; \
    } while (0)

// A circuit's matrices, witnesses (test::r1cs_case), parameters and verifying key, made once per test binary.
struct circuit_case {
    std::unique_ptr<circuits::circuit> circuit;
    std::unique_ptr<test::r1cs_case> r1cs;
    setup_result setup;
    prepared_verifying_key pvk;
    std::vector<ff::fr_t> public_inputs;
};

const circuit_case& case_for(const std::string& spec) {
    static std::map<std::string, std::unique_ptr<circuit_case>> cache;
    auto& k = cache[spec];
    if (!k) {
        k = std::make_unique<circuit_case>();
        k->circuit = spec == "every-aux-in-a" ? std::make_unique<test::every_aux_in_a>(6000, 500, 31)
                                              : circuits::make_circuit(spec);
        k->r1cs = test::make_r1cs_case(*k->circuit);
        k->setup = generate_random_parameters(*k->circuit, seeded(std::hash<std::string>{}(spec)));
        k->pvk = prepare_verifying_key(k->setup.params.vk);
        k->public_inputs = k->circuit->public_inputs();
    }
    return *k;
}

// A compact witness in memory of its own: the inputs and a compact vector built from aux values in full.
struct owned_compact {
    std::vector<ff::fr_t> inputs;
    witness::compact_vector_builder aux;

    owned_compact(std::span<const ff::fr_t> in, std::span<const ff::fr_t> values) : inputs(in.begin(), in.end()) {
        for (const auto& v : values) aux.push_back(v);
    }
    gpud::compact_partition partition(const r1cs::r1cs_matrices& m) const { return {inputs, aux.view(), &m}; }
};

// The same witness laid out as a ring slot's payload holds it after its header: the inputs, then the compact
// vector serialized (daemon/partition_witness.hpp), in a block that a backend may register once.
struct slot_block {
    std::vector<std::uint64_t> bytes;  // 8-byte aligned, as witness::read needs
    gpud::compact_partition view;

    slot_block(std::span<const ff::fr_t> inputs, const witness::compact_vector_view& aux,
               const r1cs::r1cs_matrices& m)
        : bytes((inputs.size_bytes() + witness::serialized_bytes(aux)) / 8 + 64) {
        auto* b = reinterpret_cast<std::byte*>(bytes.data()) + 320;  // a header's length in, as in a slot
        std::copy_n(reinterpret_cast<const std::byte*>(inputs.data()), inputs.size_bytes(), b);
        const std::span<std::byte> rest(b + inputs.size_bytes(), bytes.size() * 8 - 320 - inputs.size_bytes());
        witness::write(rest, aux);
        const std::span<const ff::fr_t> in(reinterpret_cast<const ff::fr_t*>(b), inputs.size());
        view = {in, witness::read(rest), &m};
    }
    std::span<const std::byte> region() const { return std::as_bytes(std::span<const std::uint64_t>(bytes)); }
};

std::array<uint8_t, PROOF_BYTES> prove_compact(gpud::proving_backend& be, const gpud::compact_partition& w,
                                       const parameters& params, uint64_t seed) {
    auto work = be.prepare_compact(w, params);
    be.run_kernels(*work);
    rng_fn rng = seeded(seed);
    return proof_to_bytes(be.finish(*work, rng));
}

std::array<uint8_t, PROOF_BYTES> prove_full(gpud::proving_backend& be, const witness_view& w, const parameters& params,
                                    uint64_t seed) {
    auto work = be.prepare(w, params);
    be.run_kernels(*work);
    rng_fn rng = seeded(seed);
    return proof_to_bytes(be.finish(*work, rng));
}

std::map<std::string, uint64_t> counters_of(const gpud::proving_backend& be) {
    std::map<std::string, uint64_t> c;
    for (const auto& [name, value] : be.counters()) c[name] = value;
    return c;
}

size_t compact_bytes(const gpud::compact_partition& w) {
    return w.inputs.size_bytes() + w.aux.full_mask.size_bytes() + w.aux.bit_value.size_bytes() +
           w.aux.full_before.size_bytes() + w.aux.full.size_bytes();
}

class CudaBackendCompactProof : public ::testing::TestWithParam<std::string> {};

// In a registered block laid out as a ring slot (as gpud runs it), and from separate vectors; with the points
// resident, in host memory and split between the two; B_G2 on the CPU takes the host expansion. Each equals the CPU backend's proof of
// the same compact partition and the CUDA backend's proof of the full witness, and verifies.
TEST_P(CudaBackendCompactProof, EqualsTheCpuBackendsAndVerifies) {
    SKIP_WITHOUT_GPU();
    const std::string spec = GetParam();
    const circuit_case& k = case_for(spec);
    const r1cs::r1cs_matrices& m = k.r1cs->m;
    const parameters& params = k.setup.params;
    const gpud::compact_partition separate{k.r1cs->wa.inputs(), k.r1cs->wa.aux(), &m};
    const slot_block slot(k.r1cs->wa.inputs(), k.r1cs->wa.aux(), m);

    gpud::cpu_backend cpu;
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    be.register_host_region(slot.region());
    gpud::cuda_backend host_points(0, {.pin_min_bytes = 0, .placement = gpud::params_placement::host});
    gpud::cuda_backend b_g2_on_cpu(0, {.pin_min_bytes = 0, .b_g2_on_gpu = false});
    // Split between the device and host memory inside a's points (l and part of a resident), as where not all
    // fit (split_points_for_test; L and A then run apart, A across the split).
    gpud::cuda_backend split(0, {.pin_min_bytes = 0});
    split.split_points_for_test(params.l.size() + params.a.size() / 2);
    for (uint64_t seed : {1000u, 1001u}) {
        SCOPED_TRACE(spec + " seed " + std::to_string(seed));
        const auto want = prove_compact(cpu, separate, params, seed);
        EXPECT_TRUE(verify_proof(k.pvk, proof_from_bytes(want), k.public_inputs));
        EXPECT_EQ(prove_full(be, view_of(k.r1cs->pa), params, seed), want) << "full witness";
        EXPECT_EQ(prove_compact(be, slot.view, params, seed), want) << "in a ring slot's layout";
        EXPECT_EQ(prove_compact(be, separate, params, seed), want) << "separate vectors";
        EXPECT_EQ(prove_compact(host_points, slot.view, params, seed), want) << "points in host memory";
        EXPECT_EQ(prove_compact(split, separate, params, seed), want) << "points split at a";
        EXPECT_EQ(prove_compact(b_g2_on_cpu, separate, params, seed), want) << "B_G2 on the CPU";
    }
    auto c = counters_of(be);
    EXPECT_EQ(c["compact_partitions"], 4u);
    EXPECT_EQ(c["compact_uploaded_bytes"], 2 * compact_bytes(slot.view) + 2 * compact_bytes(separate));
    EXPECT_EQ(counters_of(host_points)["compact_partitions"], 2u);
    EXPECT_EQ(counters_of(b_g2_on_cpu)["compact_partitions"], 0u) << "B_G2 on the CPU expands on the host";
    EXPECT_GT(be.resident_matrix_bytes(), 0u);
    EXPECT_GT(be.compact_witness_bytes(), m.z_size() * sizeof(ff::fr_t));
}

INSTANTIATE_TEST_SUITE_P(Circuits, CudaBackendCompactProof,
                         ::testing::Values("mul:1", "mul:64", "mul:1000", "sha256:1", "sha256:2", "every-aux-in-a"),
                         [](const auto& info) {
                             std::string s = info.param;
                             for (auto& ch : s)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return s;
                         });

// Where A uses every aux variable, A's scalars are z and L and A run as one MSM over its aux part.
TEST(CudaBackendCompact, LAndARunAsOneWhereAUsesEveryAuxVariable) {
    SKIP_WITHOUT_GPU();
    const circuit_case& k = case_for("every-aux-in-a");
    ASSERT_EQ(k.r1cs->pa.a_aux_density().count(), k.r1cs->wa.aux().size);
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    gpud::cpu_backend cpu;
    const gpud::compact_partition w{k.r1cs->wa.inputs(), k.r1cs->wa.aux(), &k.r1cs->m};
    EXPECT_EQ(prove_compact(be, w, k.setup.params, 9), prove_compact(cpu, w, k.setup.params, 9));
    EXPECT_EQ(counters_of(be)["l_a_msm_shared"], 1u);
    const circuit_case& mul = case_for("mul:64");
    const gpud::compact_partition wm{mul.r1cs->wa.inputs(), mul.r1cs->wa.aux(), &mul.r1cs->m};
    EXPECT_EQ(prove_compact(be, wm, mul.setup.params, 9), prove_compact(cpu, wm, mul.setup.params, 9));
    EXPECT_EQ(counters_of(be)["l_a_msm_shared"], 1u) << "mul:64 leaves an aux variable out of A";
}

// A real 2 KiB partition (the registry seals a sample sector): ~2.7 M rows, rows of up to thousands of terms,
// A leaving 10,765 aux variables out.
TEST(CudaBackendCompact, PoRep2KiBPartitionEqualsTheCpuBackendsAndVerifies) {
    SKIP_WITHOUT_GPU();
    const circuit_case& k = case_for("porep:StackedDrg2KiBV1_1");
    const slot_block slot(k.r1cs->wa.inputs(), k.r1cs->wa.aux(), k.r1cs->m);
    gpud::cuda_backend be(0);
    be.register_host_region(slot.region());
    gpud::cpu_backend cpu;
    const auto want = prove_compact(cpu, slot.view, k.setup.params, 77);
    const auto got = prove_compact(be, slot.view, k.setup.params, 77);
    EXPECT_EQ(got, want);
    EXPECT_TRUE(verify_proof(k.pvk, proof_from_bytes(got), k.public_inputs));
    EXPECT_EQ(prove_compact(be, slot.view, k.setup.params, 78), prove_compact(cpu, slot.view, k.setup.params, 78));
    EXPECT_EQ(counters_of(be)["compact_partitions"], 2u);
    EXPECT_EQ(be.host_pin_stats().pinned_ranges, 0u) << "nothing pinned per partition";
}

// Compact and full-witness partitions of one circuit in turn on one backend, with other values each (a mix-up of
// rows, scalars or B_G2 scalars between them would show): the full ones' B_G2 prestage and spare slot as far as
// they still apply (the first compact partition frees the spare: a row a staged in it is copied again by its
// partition), every proof equal to the CPU backend's.
TEST(CudaBackendCompact, CompactAndFullPartitionsInterleaveOnOneBackend) {
    SKIP_WITHOUT_GPU();
    const circuit_case& k = case_for("mul:1000");
    const parameters& params = k.setup.params;
    const r1cs::r1cs_matrices& m = k.r1cs->m;
    const witness_view wx = view_of(k.r1cs->pa);
    std::vector<ff::fr_t> aux_y(wx.aux.begin(), wx.aux.end()), a_y(wx.a.begin(), wx.a.end());
    std::reverse(aux_y.begin(), aux_y.end());
    std::reverse(a_y.begin(), a_y.end());
    witness_view wy = wx;
    wy.aux = aux_y;
    wy.a = a_y;
    std::vector<ff::fr_t> aux_c = witness::expand(k.r1cs->wa.aux()), aux_d = aux_c;
    std::rotate(aux_c.begin(), aux_c.begin() + aux_c.size() / 3, aux_c.end());
    std::rotate(aux_d.begin(), aux_d.begin() + aux_d.size() / 5, aux_d.end());
    const owned_compact oc(k.r1cs->wa.inputs(), aux_c), od(k.r1cs->wa.inputs(), aux_d);
    const gpud::compact_partition wc = oc.partition(m), wd = od.partition(m);

    gpud::cpu_backend cpu;
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    auto finished = [&](std::unique_ptr<gpud::partition_work>& work, uint64_t seed) {
        rng_fn rng = seeded(seed);
        return proof_to_bytes(be.finish(*work, rng));
    };

    // X (full) holds the lock and Y (full) waits: X's B_G2 thread stages Y's inputs, its row a in the spare slot.
    // Then C, the first compact partition, is prepared: its matrices are made resident there, before the lock,
    // which frees the spare slot; Y copies its row a again, its B_G2 scalars too (C's kernels used the G2 context).
    auto x = be.prepare(wx, params);
    auto y = be.prepare(wy, params);
    be.run_kernels(*x);
    EXPECT_EQ(be.b_g2_prestage().copied, 1u);
    EXPECT_EQ(be.b_g2_prestage().row_a_copied, 1u);
    auto c = be.prepare_compact(wc, params);
    EXPECT_GT(be.resident_matrix_bytes(), 0u) << "the matrices are made resident in prepare";
    be.run_kernels(*c);
    be.run_kernels(*y);
    EXPECT_EQ(be.b_g2_prestage().used, 0u);
    EXPECT_EQ(be.b_g2_prestage().row_a_used, 0u);
    EXPECT_EQ(finished(c, 2), prove_compact(cpu, wc, params, 2));
    EXPECT_EQ(finished(x, 1), prove_full(cpu, wx, params, 1));
    EXPECT_EQ(finished(y, 3), prove_full(cpu, wy, params, 3));

    // Then one after the other, both kinds, each prepared before the previous one's kernels.
    auto d = be.prepare_compact(wd, params);
    x = be.prepare(wx, params);
    be.run_kernels(*d);
    c = be.prepare_compact(wc, params);
    be.run_kernels(*x);
    y = be.prepare(wy, params);
    be.run_kernels(*c);
    be.run_kernels(*y);
    EXPECT_EQ(finished(d, 4), prove_compact(cpu, wd, params, 4));
    EXPECT_EQ(finished(x, 5), prove_full(cpu, wx, params, 5));
    EXPECT_EQ(finished(c, 6), prove_compact(cpu, wc, params, 6));
    EXPECT_EQ(finished(y, 7), prove_full(cpu, wy, params, 7));
    EXPECT_EQ(counters_of(be)["compact_partitions"], 3u);

    // A compact partition dropped after prepare, and one dropped after its kernels: nothing left behind.
    c = be.prepare_compact(wc, params);
    c.reset();
    c = be.prepare_compact(wc, params);
    be.run_kernels(*c);
    c.reset();
    EXPECT_EQ(prove_compact(be, wd, params, 8), prove_compact(cpu, wd, params, 8));
}

// forget() frees a set's matrices with its points, and the compact witness's buffers with the last matrices; the
// next compact partition uploads them again and proves the same.
TEST(CudaBackendCompact, ForgetFreesTheMatricesAndTheWitnessBuffers) {
    SKIP_WITHOUT_GPU();
    const circuit_case& k = case_for("sha256:1");
    const circuit_case& k2 = case_for("mul:1000");
    const gpud::compact_partition w{k.r1cs->wa.inputs(), k.r1cs->wa.aux(), &k.r1cs->m};
    const gpud::compact_partition w2{k2.r1cs->wa.inputs(), k2.r1cs->wa.aux(), &k2.r1cs->m};
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    const auto first = prove_compact(be, w, k.setup.params, 5);
    prove_compact(be, w2, k2.setup.params, 5);
    EXPECT_EQ(be.resident_sets(), 2u);
    const size_t both = be.resident_matrix_bytes();
    EXPECT_GT(both, 0u);

    be.forget(k2.setup.params);
    EXPECT_EQ(be.resident_sets(), 1u);
    EXPECT_LT(be.resident_matrix_bytes(), both);
    EXPECT_GT(be.compact_witness_bytes(), 0u) << "sha256:1's matrices are still resident";

    const size_t free_before = be.device()->free_bytes;
    be.forget(k.setup.params);
    EXPECT_EQ(be.resident_sets(), 0u);
    EXPECT_EQ(be.resident_matrix_bytes(), 0u);
    EXPECT_EQ(be.compact_witness_bytes(), 0u);
    // (Small allocations share the driver's pages: the device's free memory grows, by what is not told exactly.)
    EXPECT_GT(be.device()->free_bytes, free_before) << "freed on the device";

    EXPECT_EQ(prove_compact(be, w, k.setup.params, 5), first);
    EXPECT_GT(be.resident_matrix_bytes(), 0u);
}

// A compact vector whose full_before points past its full values (a slot written wrongly) fails the kernels
// with std::invalid_argument (a witness problem, not the device's: not retried), nothing read out of bounds;
// the backend proves the next partition as before.
TEST(CudaBackendCompact, AnInconsistentCompactWitnessFailsItsKernelsOnly) {
    SKIP_WITHOUT_GPU();
    // mul:1000's aux values are products, nearly all full (sha256's are bits: no full value to point past).
    const circuit_case& k = case_for("mul:1000");
    const witness::compact_vector_view aux = k.r1cs->wa.aux();
    ASSERT_GT(aux.full.size(), 0u);
    std::vector<uint32_t> before(aux.full_before.begin(), aux.full_before.end());
    for (size_t b = 0; b < before.size(); ++b)
        if (aux.full_mask[b]) before[b] += uint32_t(aux.full.size());
    witness::compact_vector_view bad_aux = aux;
    bad_aux.full_before = before;
    const gpud::compact_partition bad{k.r1cs->wa.inputs(), bad_aux, &k.r1cs->m};
    const gpud::compact_partition good{k.r1cs->wa.inputs(), aux, &k.r1cs->m};
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    gpud::cpu_backend cpu;
    auto work = be.prepare_compact(bad, k.setup.params);
    try {
        be.run_kernels(*work);
        ADD_FAILURE() << "the kernels took an inconsistent compact witness";
    } catch (const cuda::cuda_error& e) {
        ADD_FAILURE() << "a device error for a witness problem: " << e.what();
    } catch (const std::invalid_argument&) {
    }
    work.reset();
    EXPECT_EQ(be.device_lost(), "");
    EXPECT_EQ(prove_compact(be, good, k.setup.params, 3), prove_compact(cpu, good, k.setup.params, 3));
}

// prepare_compact's checks, before the lock (they need no GPU): a witness of another circuit, a first input
// that is not ONE, block arrays of the wrong length are input errors; parameters of another circuit an
// invalid_argument naming the first vector that does not fit.
TEST(CudaBackendCompact, PrepareChecksTheWitnessAndTheParametersAgainstTheMatrices) {
    const circuit_case& k = case_for("mul:64");
    const circuit_case& other = case_for("mul:1000");
    const r1cs::r1cs_matrices& m = k.r1cs->m;
    const gpud::compact_partition w{k.r1cs->wa.inputs(), k.r1cs->wa.aux(), &m};
    unsigned log_m = 0;
    while ((uint64_t(1) << log_m) < m.prover_rows()) ++log_m;
    EXPECT_EQ(gpud::check_compact_partition(w, k.setup.params), log_m);

    gpud::compact_partition wrong = w;
    wrong.matrices = &other.r1cs->m;
    EXPECT_THROW(gpud::check_compact_partition(wrong, other.setup.params), input_error) << "another circuit's matrices";
    wrong = w;
    wrong.matrices = nullptr;
    EXPECT_THROW(gpud::check_compact_partition(wrong, k.setup.params), std::invalid_argument);

    std::vector<ff::fr_t> inputs(w.inputs.begin(), w.inputs.end());
    inputs[0] = ff::fr_t::from_u64(2);
    wrong = w;
    wrong.inputs = inputs;
    EXPECT_THROW(gpud::check_compact_partition(wrong, k.setup.params), input_error) << "first input not ONE";

    wrong = w;
    wrong.aux.bit_value = w.aux.bit_value.first(w.aux.bit_value.size() - 1);
    EXPECT_THROW(gpud::check_compact_partition(wrong, k.setup.params), input_error) << "block arrays";

    try {
        gpud::check_compact_partition(w, other.setup.params);
        ADD_FAILURE() << "another circuit's parameters were taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("parameters do not fit the circuit"), std::string::npos) << e.what();
    }
    parameters fewer_b = k.setup.params;
    fewer_b.b_g2.pop_back();
    try {
        gpud::check_compact_partition(w, fewer_b);
        ADD_FAILURE() << "a b_g2 of the wrong length was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("b_g2 has"), std::string::npos) << e.what();
    }
}

}  // namespace

// prepare (before the CUDA lock) makes a new set's points and matrices resident, so the kernels under the lock
// find them; a second prepare of the same set uploads nothing more.
TEST(CudaBackendCompact, PrepareMakesTheSetResidentBeforeTheLock) {
    SKIP_WITHOUT_GPU();
    const circuit_case& k = case_for("mul:1000");
    const gpud::compact_partition w{k.r1cs->wa.inputs(), k.r1cs->wa.aux(), &k.r1cs->m};
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    gpud::cpu_backend cpu;
    EXPECT_EQ(be.resident_sets(), 0u);
    auto work = be.prepare_compact(w, k.setup.params);
    EXPECT_EQ(be.resident_sets(), 1u) << "points resident after prepare, before run_kernels";
    const size_t matrices = be.resident_matrix_bytes();
    EXPECT_GT(matrices, 0u) << "matrices resident after prepare";
    auto again = be.prepare_compact(w, k.setup.params);
    EXPECT_EQ(be.resident_sets(), 1u);
    EXPECT_EQ(be.resident_matrix_bytes(), matrices);
    again.reset();
    work.reset();
    EXPECT_EQ(prove_compact(be, w, k.setup.params, 4), prove_compact(cpu, w, k.setup.params, 4));
}

// The side lane (cuda_backend.hpp): while one thread runs a big set's compact partition under run_kernels (as
// the lock's holder does), another runs a small set's beside it (run_kernels_beside_lock, as gpud does for a
// WinningPoSt), round after round; every proof equals the CPU backend's. The side lane takes compact works of
// the small set alone (here the lane ends at 2^12: mul:16000's 2^14 is big, mul:1000's 2^10 small), and refuses
// another with std::logic_error. Both threads share the device, so their kernels may overlap: each sequence's
// buffers and contexts are its own.
TEST(CudaBackendCompact, ASmallSetsPartitionRunsBesideAnotherSetsKernels) {
    SKIP_WITHOUT_GPU();
    const circuit_case& big = case_for("mul:16000");
    const circuit_case& small = case_for("mul:1000");
    const owned_compact ob(big.r1cs->wa.inputs(), witness::expand(big.r1cs->wa.aux()));
    const owned_compact os(small.r1cs->wa.inputs(), witness::expand(small.r1cs->wa.aux()));
    const gpud::compact_partition wb = ob.partition(big.r1cs->m), ws = os.partition(small.r1cs->m);
    gpud::cuda_backend be(0, {.pin_min_bytes = 0, .side_lane_max_log = 12});
    gpud::cpu_backend cpu;
    auto finished = [&](std::unique_ptr<gpud::partition_work>& work, uint64_t seed) {
        rng_fn rng = seeded(seed);
        return proof_to_bytes(be.finish(*work, rng));
    };
    {
        auto b = be.prepare_compact(wb, big.setup.params);
        auto full = be.prepare(view_of(small.r1cs->pa), small.setup.params);
        EXPECT_FALSE(be.can_run_beside_lock(*b)) << "domain 2^14, above the side lane's 2^12";
        EXPECT_FALSE(be.can_run_beside_lock(*full)) << "a full witness never goes beside the lock";
        EXPECT_THROW(be.run_kernels_beside_lock(*b), std::logic_error);
    }
    constexpr int rounds = 4;
    for (int round = 0; round < rounds; ++round) {
        auto b = be.prepare_compact(wb, big.setup.params);
        auto s = be.prepare_compact(ws, small.setup.params);
        ASSERT_TRUE(be.can_run_beside_lock(*s));
        std::thread holder([&] { be.run_kernels(*b); });
        be.run_kernels_beside_lock(*s);
        holder.join();
        EXPECT_EQ(finished(s, 20 + round), prove_compact(cpu, ws, small.setup.params, 20 + round)) << "round " << round;
        EXPECT_EQ(finished(b, 30 + round), prove_compact(cpu, wb, big.setup.params, 30 + round)) << "round " << round;
    }
    EXPECT_EQ(counters_of(be)["beside_lock_partitions"], uint64_t(rounds));
    // Under the lock too, a small set's partition proves the same (its run there waits for the side lane's).
    EXPECT_EQ(prove_compact(be, ws, small.setup.params, 40), prove_compact(cpu, ws, small.setup.params, 40));
}

// warm_side_lane after a preload: one run on the side lane, counted as a warm-up and not as a partition; the first
// partition beside the lock then proves as the CPU does. A set above the lane's domain is not warmed.
TEST(CudaBackendCompact, WarmingTheSideLaneRunsItOnceUncountedAndTheFirstPartitionProvesAsTheCpu) {
    SKIP_WITHOUT_GPU();
    const circuit_case& small = case_for("mul:1000");
    const circuit_case& big = case_for("mul:16000");
    const owned_compact os(small.r1cs->wa.inputs(), witness::expand(small.r1cs->wa.aux()));
    const gpud::compact_partition ws = os.partition(small.r1cs->m);
    gpud::cuda_backend be(0, {.pin_min_bytes = 0, .side_lane_max_log = 12});
    gpud::cpu_backend cpu;
    be.preload(small.setup.params, &small.r1cs->m);
    be.warm_side_lane(small.setup.params, small.r1cs->m);
    be.preload(big.setup.params, &big.r1cs->m);
    be.warm_side_lane(big.setup.params, big.r1cs->m);  // 2^14, above the lane's 2^12
    auto c = counters_of(be);
    EXPECT_EQ(c["side_lane_warm_ups"], 1u);
    EXPECT_EQ(c["beside_lock_partitions"], 0u);
    EXPECT_EQ(c["compact_partitions"], 0u);
    EXPECT_EQ(c["side_lane_off"], 0u);
    auto s = be.prepare_compact(ws, small.setup.params);
    ASSERT_TRUE(be.can_run_beside_lock(*s));
    be.run_kernels_beside_lock(*s);
    rng_fn rng = seeded(50);
    EXPECT_EQ(proof_to_bytes(be.finish(*s, rng)), prove_compact(cpu, ws, small.setup.params, 50));
    c = counters_of(be);
    EXPECT_EQ(c["beside_lock_partitions"], 1u);
    EXPECT_EQ(c["compact_partitions"], 1u);
}

// PreloadSRS's path: preload() leaves the set and its matrices resident before any partition; the first
// partition then proves as the CPU does.
TEST(CudaBackendCompact, PreloadMakesTheSetAndItsMatricesResident) {
    SKIP_WITHOUT_GPU();
    const circuit_case& k = case_for("mul:1000");
    const gpud::compact_partition w{k.r1cs->wa.inputs(), k.r1cs->wa.aux(), &k.r1cs->m};
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    gpud::cpu_backend cpu;
    be.preload(k.setup.params, &k.r1cs->m);
    EXPECT_EQ(be.resident_sets(), 1u);
    EXPECT_GT(be.resident_matrix_bytes(), 0u);
    EXPECT_EQ(prove_compact(be, w, k.setup.params, 6), prove_compact(cpu, w, k.setup.params, 6));
    EXPECT_EQ(be.resident_sets(), 1u);
}

// Less device memory at a partition's kernels than when the plan was made (a ballast takes it after
// PreloadSRS): the ballast leaves the run what it took on an idle backend less half of its MSM scratch, so a run
// with every window in one pass cannot fit and one in passes can.
struct ballast_case {
    size_t idle_scratch = 0;  // the MSM scratch of the run on an idle backend
    size_t run_takes = 0;     // what that run allocated beyond PreloadSRS
};

// Proves once on a fresh idle backend (after preload) to learn what the run takes.
template <class Prove>
ballast_case measure_idle_run(const Prove& prove, bool compact, const circuit_case& k) {
    gpud::cuda_backend idle(0, {.pin_min_bytes = 0});
    idle.preload(k.setup.params, compact ? &k.r1cs->m : nullptr);
    const size_t before = cuda::free_device_memory(0);
    prove(idle);
    ballast_case c;
    c.run_takes = before - std::min(before, cuda::free_device_memory(0));
    c.idle_scratch = counters_of(idle)["msm_scratch_bytes"];
    EXPECT_EQ(counters_of(idle)["out_of_memory_replans"], 0u);
    return c;
}

struct device_ballast {
    void* p = nullptr;
    explicit device_ballast(size_t bytes) {
        if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
    }
    ~device_ballast() {
        if (p) cudaFree(p);
    }
};

// A compact partition: its small witness grows its buffers by less than a replan waits for, so the stale plan
// reaches the kernels, an allocation is refused, and the kernels run again at once under the new plan (a large
// growth, a 32 GiB WindowPoSt's 4 GB, is planned again before them): one replan, the proof as the CPU's.
TEST(CudaBackendCompact, LessMemoryThanAtPreloadIsPlannedAroundWithinTheKernels) {
    SKIP_WITHOUT_GPU();
    const circuit_case& k = case_for("mul:200000");
    const gpud::compact_partition w{k.r1cs->wa.inputs(), k.r1cs->wa.aux(), &k.r1cs->m};
    gpud::cpu_backend cpu;
    const auto want = prove_compact(cpu, w, k.setup.params, 21);
    const ballast_case c = measure_idle_run(
        [&](gpud::cuda_backend& be) { EXPECT_EQ(prove_compact(be, w, k.setup.params, 21), want); }, true, k);
    ASSERT_GT(c.idle_scratch, size_t(16) << 20) << "too little MSM scratch to take half of it away measurably";
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    be.preload(k.setup.params, &k.r1cs->m);
    const size_t free_now = cuda::free_device_memory(0);
    device_ballast ballast(free_now - (c.run_takes - c.idle_scratch / 2));
    ASSERT_NE(ballast.p, nullptr);
    EXPECT_EQ(prove_compact(be, w, k.setup.params, 21), want);
    EXPECT_GE(counters_of(be)["out_of_memory_replans"], 1u) << "the stale plan fit after all";
    EXPECT_LT(counters_of(be)["msm_scratch_bytes"], c.idle_scratch) << "windows in passes take less scratch";
}

// A full-witness partition (no witness buffers to grow: the stale plan reaches the kernels): an allocation is
// refused, the partition fails retryable (a device_error, as gpud reports it), and the retry, under the plan
// made again with the refused size kept out, proves as the CPU does.
TEST(CudaBackendCompact, AnAllocationRefusedForWantOfMemoryIsPlannedAroundOnTheRetry) {
    SKIP_WITHOUT_GPU();
    const circuit_case& k = case_for("mul:200000");
    const witness_view w = view_of(k.r1cs->pa);
    gpud::cpu_backend cpu;
    const auto want = prove_full(cpu, w, k.setup.params, 22);
    const ballast_case c = measure_idle_run(
        [&](gpud::cuda_backend& be) { EXPECT_EQ(prove_full(be, w, k.setup.params, 22), want); }, false, k);
    ASSERT_GT(c.idle_scratch, size_t(16) << 20) << "too little MSM scratch to take half of it away measurably";
    gpud::cuda_backend be(0, {.pin_min_bytes = 0});
    be.preload(k.setup.params, nullptr);
    const size_t free_now = cuda::free_device_memory(0);
    device_ballast ballast(free_now - (c.run_takes - c.idle_scratch / 2));
    ASSERT_NE(ballast.p, nullptr);
    EXPECT_THROW(prove_full(be, w, k.setup.params, 22), gpud::device_error) << "the stale plan fit after all";
    EXPECT_EQ(counters_of(be)["out_of_memory_replans"], 1u);
    EXPECT_EQ(prove_full(be, w, k.setup.params, 22), want);
    EXPECT_LT(counters_of(be)["msm_scratch_bytes"], c.idle_scratch) << "windows in passes take less scratch";
}
