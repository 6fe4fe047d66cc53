// The R1CS evaluation on the GPU (gpud/cuda/r1cs_device.hpp, r1cs_witness.hpp) against the CPU on the same
// circuits: z expanded from the compact witness, the rows a, b, c written into the NTT context's slots (over
// what they held before, padded to the domain) and H computed from them, and the A and B scalars gathered, equal
// groth16::proving_assignment's rows and z and prepare_partition's scalars; from the compact witness and from z,
// uploaded and resident. Built-in circuits, rows of many terms, a circuit with every aux value in A, and a 2 KiB
// PoRep partition; bad matrices and an inconsistent compact witness are refused. Skipped where no GPU is present.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "common/circuits/registry.hpp"
#include "common/ntt/ntt.hpp"
#include "common/witness/compact_vector_serialization.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/ntt.hpp"
#include "gpud/cuda/r1cs_device.hpp"
#include "gpud/cuda/r1cs_plan.hpp"
#include "gpud/cuda/r1cs_witness.hpp"
#include "support/every_aux_in_a.hpp"
#include "support/r1cs_cases.hpp"

using namespace cuzk;
using cuzk::ff::fr_t;

namespace {

class CudaR1cs : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        if (cuda::device_count(&why) == 0) GTEST_SKIP() << "no GPU present (" << why << "): CUDA tests skipped";
    }
};

std::vector<fr_t> download(const fr_t* device, size_t n) {
    std::vector<fr_t> v(n);
    if (n == 0) return v;
    if (cudaMemcpy(v.data(), device, n * sizeof(fr_t), cudaMemcpyDeviceToHost) != cudaSuccess)
        throw std::runtime_error("cudaMemcpy from the device failed");
    return v;
}

// Device copies of a host array, freed with the object.
struct device_copy {
    void* p = nullptr;
    template <class T>
    std::span<const T> of(std::span<const T> x) {
        if (cudaMalloc(&p, std::max<size_t>(x.size_bytes(), 1)) != cudaSuccess ||
            cudaMemcpy(p, x.data(), x.size_bytes(), cudaMemcpyHostToDevice) != cudaSuccess)
            throw std::runtime_error("cudaMalloc or cudaMemcpy failed");
        return {static_cast<const T*>(p), x.size()};
    }
    ~device_copy() {
        if (p) cudaFree(p);
    }
};

unsigned log_domain(uint64_t rows) {
    unsigned L = 0;
    while ((uint64_t(1) << L) < rows) ++L;
    return L;
}

std::vector<fr_t> padded(const std::vector<fr_t>& v, uint64_t n) {
    std::vector<fr_t> p(v);
    p.resize(n, fr_t::zero());
    return p;
}

// Everything the GPU computes for |k| against the CPU, the witness uploaded (or resident) and read both ways,
// the rows into a domain of 2^(log_m + extra).
void check_case(const test::r1cs_case& k, const std::string& what, bool resident = false, unsigned extra = 0) {
    SCOPED_TRACE(what);
    const cuda::r1cs_device m(k.m);
    EXPECT_EQ(m.non_zeros(), k.m.a.non_zeros() + k.m.b.non_zeros() + k.m.c.non_zeros());
    EXPECT_GE(m.device_bytes(), 6 * m.non_zeros() + 12 * m.circuit_rows());
    EXPECT_EQ(m.a_aux_count(), k.pa.a_aux_density().count());
    EXPECT_EQ(m.b_input_count(), k.pa.b_input_density().count());
    EXPECT_EQ(m.b_aux_count(), k.pa.b_aux_density().count());

    cuda::r1cs_witness w;
    const witness::compact_vector_view aux = k.wa.aux();
    device_copy d_in, d_mask, d_bits, d_before, d_full;
    if (resident) {
        const witness::compact_vector_view on_device{aux.size, d_mask.of(aux.full_mask), d_bits.of(aux.bit_value),
                                                     d_before.of(aux.full_before), d_full.of(aux.full)};
        w.use_resident(m, d_in.of(k.wa.inputs()), on_device);
        EXPECT_EQ(w.uploaded_bytes(), 0u);
    } else {
        w.upload(m, k.wa.inputs(), aux);
        EXPECT_EQ(w.uploaded_bytes(), k.wa.inputs().size_bytes() + aux.full_mask.size_bytes() +
                                          aux.bit_value.size_bytes() + aux.full_before.size_bytes() +
                                          aux.full.size_bytes());
    }
    // From the compact witness, before z is expanded (it needs none).
    const unsigned L = log_domain(m.prover_rows()) + extra;
    const uint64_t n = uint64_t(1) << L;
    cuda::ntt_context ntt;
    const std::vector<fr_t>* want[3] = {&k.pa.a(), &k.pa.b(), &k.pa.c()};
    auto rows_match = [&](cuda::z_source from, const char* how) {
        for (int s = 0; s < 3; ++s) ntt.fill_random(s, L, 40 + s);  // every row must be written over
        ntt.synchronize();
        w.evaluate_rows(m, ntt.slot_for_writing(0, L), ntt.slot_for_writing(1, L), ntt.slot_for_writing(2, L), L,
                        from);
        for (int s = 0; s < 3; ++s) {
            std::vector<fr_t> got(n);
            ntt.store(s, got);
            EXPECT_TRUE(got == padded(*want[s], n)) << how << ": row " << "abc"[s] << ", domain 2^" << L;
        }
    };
    rows_match(cuda::z_source::compact, "compact");
    EXPECT_THROW(w.evaluate_rows(m, ntt.slot_for_writing(0, L), ntt.slot_for_writing(1, L),
                                 ntt.slot_for_writing(2, L), L, cuda::z_source::expanded),
                 std::logic_error);

    w.expand(m);
    EXPECT_TRUE(download(w.z(), m.z_size()) == k.z()) << "z";
    EXPECT_EQ(w.aux(), w.z() + m.num_inputs());
    rows_match(cuda::z_source::expanded, "expanded");

    // H from the rows where evaluate_rows left them, as gpud runs it, against the CPU's H of the CPU's rows.
    w.evaluate_rows(m, ntt.slot_for_writing(0, L), ntt.slot_for_writing(1, L), ntt.slot_for_writing(2, L), L);
    ntt.compute_h_resident(L);
    std::vector<fr_t> h(n);
    ntt.store(0, h);
    std::vector<fr_t> a = padded(k.pa.a(), n), b = padded(k.pa.b(), n), c = padded(k.pa.c(), n);
    ntt::compute_h(ntt::domain(L), a, b, c);
    EXPECT_TRUE(h == a) << "H";

    const std::vector<fr_t> want_a = k.a_scalars(), want_b = k.b_scalars();
    for (cuda::z_source from : {cuda::z_source::compact, cuda::z_source::expanded}) {
        w.gather_scalars(m, from);
        ASSERT_EQ(w.a_scalar_count(), want_a.size());
        ASSERT_EQ(w.b_scalar_count(), want_b.size());
        EXPECT_TRUE(download(w.a_scalars(), w.a_scalar_count()) == want_a) << "A's scalars";
        EXPECT_TRUE(download(w.b_scalars(), w.b_scalar_count()) == want_b) << "B's scalars";
        if (m.a_aux_count() == m.num_aux()) {
            EXPECT_EQ(w.a_scalars(), w.z()) << "A's scalars are z";
        }
    }
    EXPECT_GT(w.device_bytes(), m.z_size() * sizeof(fr_t));
}

TEST_F(CudaR1cs, MulChainMatchesTheCpu) {
    const auto k = test::make_r1cs_case(*circuits::make_circuit("mul:1000"));
    check_case(*k, "mul:1000");
    check_case(*k, "mul:1000, resident", true);
}

TEST_F(CudaR1cs, Sha256MatchesTheCpu) {
    const auto k = test::make_r1cs_case(*circuits::make_circuit("sha256:3"));
    check_case(*k, "sha256:3");
    check_case(*k, "sha256:3, resident", true);
}

// Rows of up to 4,100 terms (several pieces a row), all around the thresholds; the domain padded further.
TEST_F(CudaR1cs, LongRowsMatchTheCpu) {
    const auto k = test::make_r1cs_case(test::long_rows_circuit(9));
    const cuda::r1cs_device m(k->m);
    cuda::r1cs_plan::long_rows plan;
    for (const r1cs::sparse_rows* s : {&k->m.a, &k->m.b, &k->m.c})
        cuda::r1cs_plan::add_long_rows(plan, 0, std::span<const uint64_t>(s->row_start));
    EXPECT_EQ(m.long_rows(), plan.rows.size());
    EXPECT_EQ(m.long_row_terms(), plan.terms);
    EXPECT_GT(plan.pieces.size(), plan.rows.size()) << "rows of several pieces";
    check_case(*k, "long rows");
    check_case(*k, "long rows, domain 4x", false, 2);
    check_case(*k, "long rows, resident", true);
}

TEST_F(CudaR1cs, EveryAuxInAGivesZAsAScalars) {
    check_case(*test::make_r1cs_case(test::every_aux_in_a(6000, 500, 31)), "every aux in A");
}

// A real 2 KiB partition (the registry seals a sample sector): ~2.7 M rows.
TEST_F(CudaR1cs, PoRep2KiBPartitionMatchesTheCpu) {
    const auto k = test::make_r1cs_case(*circuits::make_circuit("porep:StackedDrg2KiBV1_1"));
    check_case(*k, "porep:StackedDrg2KiBV1_1");
}

// As gpud's CUDA backend uses it: the witness laid out as a ring slot holds it (the inputs, then the compact vector
// serialized) goes in one copy or two (copy_plan.hpp: two where the full values are 8 bytes off a 16-byte
// boundary relative to the inputs); reserve() allocates ahead; B's scalars gathered alone, A's into the caller's
// device memory (an NTT slot). Everything equals the CPU's.
TEST_F(CudaR1cs, ARingSlotsLayoutIsUploadedInOneOrTwoCopiesAndAGathersIntoASlot) {
    // 19 x 400 short rows: a domain of 2^13, room for A's ~5,250 scalars in an NTT slot.
    const auto k = test::make_r1cs_case(test::long_rows_circuit(12, 400));
    const cuda::r1cs_device m(k->m);
    const witness::compact_vector_view aux = k->wa.aux();
    const auto inputs = k->wa.inputs();
    std::vector<uint64_t> slot((inputs.size_bytes() + witness::serialized_bytes(aux)) / 8 + 8);
    auto* bytes = reinterpret_cast<std::byte*>(slot.data());
    std::copy_n(reinterpret_cast<const std::byte*>(inputs.data()), inputs.size_bytes(), bytes);
    const std::span<std::byte> rest(bytes + inputs.size_bytes(), slot.size() * 8 - inputs.size_bytes());
    witness::write(rest, aux);
    const witness::compact_vector_view in_slot = witness::read(rest);
    const std::span<const fr_t> slot_inputs(reinterpret_cast<const fr_t*>(bytes), inputs.size());

    cuda::r1cs_witness w;
    w.reserve(m, slot_inputs, in_slot, true);
    const size_t reserved = w.device_bytes();
    EXPECT_GE(reserved, (m.z_size() + m.b_input_count() + m.b_aux_count()) * sizeof(fr_t));
    w.upload(m, slot_inputs, in_slot);
    const size_t full_offset = size_t(reinterpret_cast<const std::byte*>(in_slot.full.data()) - bytes);
    EXPECT_EQ(w.upload_copies(), full_offset % 16 == 0 ? 1u : 2u) << "full values at " << full_offset;
    EXPECT_EQ(w.uploaded_bytes(), inputs.size_bytes() + aux.full_mask.size_bytes() + aux.bit_value.size_bytes() +
                                      aux.full_before.size_bytes() + aux.full.size_bytes());
    w.expand(m);
    EXPECT_TRUE(download(w.z(), m.z_size()) == k->z()) << "z";
    const unsigned L = log_domain(m.prover_rows());
    cuda::ntt_context ntt;
    w.evaluate_rows(m, ntt.slot_for_writing(0, L), ntt.slot_for_writing(1, L), ntt.slot_for_writing(2, L), L);
    std::vector<fr_t> got(uint64_t(1) << L);
    ntt.store(2, got);
    EXPECT_TRUE(got == padded(k->pa.c(), got.size())) << "row c";

    w.gather_b_scalars(m);
    EXPECT_TRUE(download(w.b_scalars(), w.b_scalar_count()) == k->b_scalars()) << "B's scalars";
    ASSERT_LT(m.a_aux_count(), m.num_aux());
    ASSERT_LE(m.num_inputs() + m.a_aux_count(), uint64_t(1) << L);
    ff::fr_t* slot1 = ntt.slot_for_writing(1, L);
    w.gather_a_scalars(m, slot1);
    EXPECT_EQ(w.a_scalars(), slot1);
    EXPECT_TRUE(download(w.a_scalars(), w.a_scalar_count()) == k->a_scalars()) << "A's scalars in the slot";
    EXPECT_EQ(w.device_bytes(), reserved) << "nothing allocated beyond the reservation";
    // Its own buffer otherwise (as gather_scalars).
    w.gather_a_scalars(m);
    EXPECT_NE(w.a_scalars(), slot1);
    EXPECT_TRUE(download(w.a_scalars(), w.a_scalar_count()) == k->a_scalars()) << "A's scalars";
}

// A partition with a few more full values than the one the buffers were reserved for (the next WinningPoSt's
// sector, the next PoRep partition) is uploaded into the same buffers: growing would free the old one, and cudaFree
// waits for every kernel on the device, the CUDA lock holder's too when this runs on the side lane.
TEST_F(CudaR1cs, AFewMoreFullValuesThanReservedForAreUploadedWithoutGrowing) {
    const auto k = test::make_r1cs_case(test::long_rows_circuit(12, 400));
    const cuda::r1cs_device m(k->m);
    const witness::compact_vector_view aux = k->wa.aux();
    ASSERT_GE(aux.full.size(), 40u);
    witness::compact_vector_view fewer = aux;
    fewer.full = aux.full.first(aux.full.size() - aux.full.size() / 40);  // 2.5 % fewer: the sizes alone matter
    cuda::r1cs_witness w;
    w.reserve(m, k->wa.inputs(), fewer, true);
    const size_t reserved = w.device_bytes();
    w.reserve(m, k->wa.inputs(), aux, true);
    EXPECT_EQ(w.device_bytes(), reserved) << "reserve grew for 2.5 % more full values";
    w.upload(m, k->wa.inputs(), aux);
    EXPECT_EQ(w.device_bytes(), reserved) << "upload grew for 2.5 % more full values";
    w.expand(m);
    EXPECT_TRUE(download(w.z(), m.z_size()) == k->z()) << "z";
}

// A compact witness whose full_before points past its full values: refused by every call that reads it (nothing
// read out of bounds), and the next good witness is evaluated as if nothing happened.
TEST_F(CudaR1cs, InconsistentCompactWitnessIsRefused) {
    const auto k = test::make_r1cs_case(test::long_rows_circuit(10));
    const cuda::r1cs_device m(k->m);
    const witness::compact_vector_view aux = k->wa.aux();
    std::vector<uint32_t> before(aux.full_before.begin(), aux.full_before.end());
    for (size_t b = 0; b < before.size(); ++b)
        if (aux.full_mask[b]) before[b] += uint32_t(aux.full.size());
    witness::compact_vector_view bad = aux;
    bad.full_before = before;
    cuda::r1cs_witness w;
    w.upload(m, k->wa.inputs(), bad);
    EXPECT_THROW(w.expand(m), std::invalid_argument);
    const unsigned L = log_domain(m.prover_rows());
    cuda::ntt_context ntt;
    EXPECT_THROW(w.evaluate_rows(m, ntt.slot_for_writing(0, L), ntt.slot_for_writing(1, L),
                                 ntt.slot_for_writing(2, L), L),
                 std::invalid_argument);
    EXPECT_THROW(w.gather_scalars(m), std::invalid_argument);

    witness::compact_vector_view short_arrays = aux;
    short_arrays.full_mask = aux.full_mask.first(aux.full_mask.size() - 1);
    EXPECT_THROW(w.upload(m, k->wa.inputs(), short_arrays), std::invalid_argument);
    EXPECT_THROW(w.upload(m, k->wa.inputs().first(1), aux), std::invalid_argument);
    EXPECT_THROW(w.evaluate_rows(m, ntt.slot_for_writing(0, L), ntt.slot_for_writing(1, L),
                                 ntt.slot_for_writing(2, L), L - 1),
                 std::invalid_argument);

    w.upload(m, k->wa.inputs(), aux);
    w.expand(m);
    EXPECT_TRUE(download(w.z(), m.z_size()) == k->z());
    w.evaluate_rows(m, ntt.slot_for_writing(0, L), ntt.slot_for_writing(1, L), ntt.slot_for_writing(2, L), L);
    std::vector<fr_t> got(uint64_t(1) << L);
    ntt.store(1, got);
    EXPECT_TRUE(got == padded(k->pa.b(), got.size()));

    const auto other = test::make_r1cs_case(*circuits::make_circuit("mul:50"));
    const cuda::r1cs_device m2(other->m);
    EXPECT_THROW(w.gather_scalars(m2), std::logic_error) << "matrices other than the upload's";
    cuda::r1cs_witness fresh;
    EXPECT_THROW(fresh.expand(m), std::logic_error) << "nothing uploaded";
}

TEST_F(CudaR1cs, BadMatricesAreRefused) {
    const auto k = test::make_r1cs_case(test::long_rows_circuit(11));
    auto refused = [&](const char* what, auto&& spoil) {
        r1cs::r1cs_matrices m = k->m;
        spoil(m);
        EXPECT_THROW(cuda::r1cs_device{m}, std::invalid_argument) << what;
    };
    refused("column beyond z", [](r1cs::r1cs_matrices& m) { m.b.column[m.b.column.size() / 2] = uint32_t(m.z_size()); });
    refused("coefficient beyond the table",
            [](r1cs::r1cs_matrices& m) { m.c.coeff.back() = uint16_t(m.coefficients.size()); });
    refused("coefficient 1 not -1", [](r1cs::r1cs_matrices& m) { m.coefficients[1] = fr_t::one(); });
    refused("rows going back", [](r1cs::r1cs_matrices& m) {
        size_t r = 1;
        while (m.a.row_start[r + 1] == m.a.row_start[r]) ++r;  // row r has terms
        m.a.row_start[r] = m.a.row_start[r + 1] + 1;
    });
    refused("rows not ending at the terms", [](r1cs::r1cs_matrices& m) { m.a.row_start.back() -= 1; });
    refused("a row too few", [](r1cs::r1cs_matrices& m) { m.c.row_start.pop_back(); });
    refused("density of the wrong size", [](r1cs::r1cs_matrices& m) { m.b_aux_density.push_back(0); });
    refused("density bit beyond the variables", [](r1cs::r1cs_matrices& m) {
        if (m.num_aux % 64) m.a_aux_density.back() |= uint64_t(1) << 63;
        else m.a_aux_density.clear();
    });
    EXPECT_NO_THROW(cuda::r1cs_device{k->m});
}

}  // namespace
