// The GPU's R1CS evaluation (gpud/cuda/r1cs_rows.cuh, r1cs_plan.hpp) compiled for the host and run as the
// kernels run it (r1cs_kernels.cuh: short rows a thread each, long rows cut into pieces summed lane by lane
// and then per row, the compact witness expanded value by value, the density gathers by prefix counts), against
// groth16::proving_assignment's rows and prepare_partition's scalars for the same circuits: the bookkeeping of
// the kernels checked on every machine. test_cuda_r1cs runs the kernels themselves on a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "common/circuits/mul_chain.hpp"
#include "common/circuits/registry.hpp"
#include "gpud/cuda/r1cs_plan.hpp"
#include "gpud/cuda/r1cs_rows.cuh"
#include "support/every_aux_in_a.hpp"
#include "support/r1cs_cases.hpp"

using namespace cuzk;
namespace rows = cuzk::cuda::r1cs_rows;
namespace plan = cuzk::cuda::r1cs_plan;
using cuda_fr = cuzk::cuda::fr_t;

namespace {

const cuda_fr* dev(const ff::fr_t* p) { return reinterpret_cast<const cuda_fr*>(p); }
ff::fr_t host(const cuda_fr& x) { return ff::fr_t(x); }

// A matrix as r1cs_device lays it out: 32-bit row offsets, the long rows' plan.
struct laid_out {
    std::vector<uint32_t> row_start;
    plan::long_rows long_rows;
    rows::matrix_view view;

    explicit laid_out(const r1cs::sparse_rows& s) {
        for (uint64_t x : s.row_start) row_start.push_back(uint32_t(x));
        plan::add_long_rows(long_rows, 0, std::span<const uint64_t>(s.row_start));
        view = {s.rows(), row_start.data(), s.column.data(), s.coeff.data()};
    }
};

// The rows of |s| with reader |z|, as evaluate_rows leaves them: the kernels' work, then the input rows (a = z[i],
// b = c = 0, |first_matrix| telling which) and zeros up to |n|.
template <class Z>
std::vector<ff::fr_t> rows_of(const r1cs::r1cs_matrices& m, const r1cs::sparse_rows& s, const Z& z, bool first_matrix,
                              uint64_t n) {
    const laid_out d(s);
    const cuda_fr* coefficients = dev(m.coefficients.data());
    std::vector<cuda_fr> out(n, cuda_fr::zero());
    // short_rows_kernel
    for (uint64_t r = 0; r < d.view.rows; ++r) {
        const uint32_t b = d.row_start[r], e = d.row_start[r + 1];
        if (e - b <= plan::SHORT_ROW_TERMS) out[r] = rows::sum_terms(d.view, z, coefficients, b, e, 1);
    }
    // pieces_kernel: lane l sums terms begin + l, begin + l + 32, ...; the lanes' sums added (in shuffle order).
    std::vector<cuda_fr> partial(d.long_rows.pieces.size());
    for (size_t p = 0; p < partial.size(); ++p) {
        const plan::piece pc = d.long_rows.pieces[p];
        cuda_fr lane[32];
        for (unsigned l = 0; l < 32; ++l) lane[l] = rows::sum_terms(d.view, z, coefficients, uint64_t(pc.begin) + l, pc.end, 32);
        for (unsigned off = 16; off > 0; off /= 2)
            for (unsigned l = 0; l < off; ++l) lane[l] += lane[l + off];
        partial[p] = lane[0];
    }
    // long_rows_kernel
    for (const plan::long_row& lr : d.long_rows.rows) {
        cuda_fr acc = partial[lr.first_piece];
        for (uint32_t k = 1; k < lr.pieces; ++k) acc += partial[lr.first_piece + k];
        out[lr.row] = acc;
    }
    for (uint64_t i = 0; i < m.num_inputs; ++i) out[m.circuit_rows + i] = first_matrix ? z.at(i) : cuda_fr::zero();
    std::vector<ff::fr_t> h(n);
    for (uint64_t r = 0; r < n; ++r) h[r] = host(out[r]);
    return h;
}

// gather_kernel over elements [first, first + bits) of z, into |out| at the density's places.
template <class Z>
void gather(const Z& z, uint64_t first, const std::vector<uint64_t>& words, uint64_t bits, std::vector<ff::fr_t>& out,
            size_t at) {
    uint64_t count = 0;
    const std::vector<uint32_t> prefix = plan::density_prefix(words, count);
    const rows::density_view d{bits, words.data(), prefix.data()};
    for (uint64_t i = 0; i < bits; ++i) {
        uint64_t place = 0;
        if (d.place_of(i, place)) out.at(at + place) = host(z.at(first + i));
    }
}

struct readers {
    std::vector<ff::fr_t> z;  // expanded by the compact reader, value by value (expand_kernel)
    uint32_t error = 0;
    rows::z_compact compact;
    rows::z_expanded expanded;

    explicit readers(const test::r1cs_case& k) {
        const witness::compact_vector_view aux = k.wa.aux();
        z.assign(k.wa.inputs().begin(), k.wa.inputs().end());
        compact = {dev(z.data()), k.wa.num_inputs(),     aux.full_mask.data(), aux.bit_value.data(),
                   aux.full_before.data(), dev(aux.full.data()), aux.full.size(),  &error};
        for (uint64_t i = 0; i < aux.size; ++i) z.push_back(host(compact.aux_at(i)));
        compact.inputs = dev(z.data());  // z moved while it grew
        expanded = {dev(z.data())};
    }
};

void check_case(const test::r1cs_case& k, const std::string& what) {
    readers rd(k);
    ASSERT_EQ(rd.error, 0u) << what;
    ASSERT_TRUE(rd.z == k.z()) << what << ": expanded z";
    const uint64_t prover = k.m.prover_rows();
    ASSERT_EQ(prover, k.pa.num_constraints()) << what;
    unsigned log_m = 0;
    while ((uint64_t(1) << log_m) < prover) ++log_m;
    for (unsigned extra : {0u, 1u}) {
        const uint64_t n = uint64_t(1) << (log_m + extra);
        auto padded = [n](std::vector<ff::fr_t> v) {
            v.resize(n, ff::fr_t::zero());
            return v;
        };
        const std::vector<ff::fr_t>* want[3] = {&k.pa.a(), &k.pa.b(), &k.pa.c()};
        const r1cs::sparse_rows* mats[3] = {&k.m.a, &k.m.b, &k.m.c};
        for (int i = 0; i < 3; ++i) {
            EXPECT_TRUE(rows_of(k.m, *mats[i], rd.compact, i == 0, n) == padded(*want[i]))
                << what << ": matrix " << "ABC"[i] << " from the compact witness, 2^" << log_m + extra;
            EXPECT_TRUE(rows_of(k.m, *mats[i], rd.expanded, i == 0, n) == padded(*want[i]))
                << what << ": matrix " << "ABC"[i] << " from z, 2^" << log_m + extra;
        }
    }
    const uint64_t n_in = k.m.num_inputs;
    const std::vector<ff::fr_t> want_a = k.a_scalars(), want_b = k.b_scalars();
    auto gathered = [&](const auto& z) {
        std::vector<ff::fr_t> a(want_a.size()), b(want_b.size());
        std::copy(rd.z.begin(), rd.z.begin() + ptrdiff_t(n_in), a.begin());
        gather(z, n_in, k.m.a_aux_density, k.m.num_aux, a, n_in);
        gather(z, 0, k.m.b_input_density, n_in, b, 0);
        gather(z, n_in, k.m.b_aux_density, k.m.num_aux, b, k.pa.b_input_density().count());
        EXPECT_TRUE(a == want_a) << what << ": A's scalars";
        EXPECT_TRUE(b == want_b) << what << ": B's scalars";
    };
    gathered(rd.compact);
    gathered(rd.expanded);
    EXPECT_EQ(rd.error, 0u) << what;
}

TEST(DeviceR1csOnHost, PlanCoversEveryLongRowOnce) {
    std::mt19937_64 rng(5);
    std::vector<uint64_t> starts{0};
    const std::vector<uint32_t> lengths = {0, 1, 16, 17, 1023, 1024, 1025, 2048, 5000, 3};
    for (int i = 0; i < 200; ++i) starts.push_back(starts.back() + lengths[rng() % lengths.size()]);
    plan::long_rows p;
    plan::add_long_rows(p, 7, std::span<const uint64_t>(starts));
    uint64_t long_terms = 0;
    size_t row = 0;
    for (size_t r = 0; r + 1 < starts.size(); ++r) {
        const uint64_t len = starts[r + 1] - starts[r];
        if (len <= plan::SHORT_ROW_TERMS) continue;
        ASSERT_LT(row, p.rows.size());
        const plan::long_row lr = p.rows[row++];
        EXPECT_EQ(lr.row, r + 7);
        EXPECT_EQ(lr.pieces, (len + plan::PIECE_TERMS - 1) / plan::PIECE_TERMS);
        uint64_t next = starts[r];
        for (uint32_t k = 0; k < lr.pieces; ++k) {
            const plan::piece pc = p.pieces[lr.first_piece + k];
            EXPECT_EQ(pc.row, r + 7);
            EXPECT_EQ(pc.begin, next);
            EXPECT_LE(pc.end - pc.begin, plan::PIECE_TERMS);
            EXPECT_GT(pc.end, pc.begin);
            next = pc.end;
        }
        EXPECT_EQ(next, starts[r + 1]);
        long_terms += len;
    }
    EXPECT_EQ(row, p.rows.size());
    EXPECT_EQ(p.terms, long_terms);
}

TEST(DeviceR1csOnHost, DensityPrefixCountsTheWordsBefore) {
    const std::vector<uint64_t> words = {0, ~uint64_t(0), 0x5, uint64_t(1) << 63};
    uint64_t count = 0;
    const std::vector<uint32_t> prefix = plan::density_prefix(words, count);
    EXPECT_EQ(prefix, (std::vector<uint32_t>{0, 0, 64, 66}));
    EXPECT_EQ(count, 67u);
}

TEST(DeviceR1csOnHost, MulChainMatchesTheProvingAssignment) {
    check_case(*test::make_r1cs_case(circuits::mul_chain(300, "7")), "mul:300");
}

TEST(DeviceR1csOnHost, Sha256MatchesTheProvingAssignment) {
    auto c = circuits::make_circuit("sha256:1");
    check_case(*test::make_r1cs_case(*c), "sha256:1");
}

TEST(DeviceR1csOnHost, LongRowsMatchTheProvingAssignment) {
    const auto k = test::make_r1cs_case(test::long_rows_circuit(3));
    uint64_t long_rows = 0, pieces = 0;
    for (const r1cs::sparse_rows* s : {&k->m.a, &k->m.b, &k->m.c}) {
        plan::long_rows p;
        plan::add_long_rows(p, 0, std::span<const uint64_t>(s->row_start));
        long_rows += p.rows.size();
        pieces += p.pieces.size();
    }
    EXPECT_GT(pieces, long_rows) << "some rows span several pieces";
    check_case(*k, "long rows");
}

TEST(DeviceR1csOnHost, EveryAuxInAMatchesTheProvingAssignment) {
    check_case(*test::make_r1cs_case(test::every_aux_in_a(500, 50, 4)), "every aux in A");
}

// A full value's index beyond the full values raises the error and reads nothing there.
TEST(DeviceR1csOnHost, FullIndexBeyondTheFullValuesIsRaised) {
    const auto k = test::make_r1cs_case(test::long_rows_circuit(4));
    const witness::compact_vector_view aux = k->wa.aux();
    ASSERT_GT(aux.full.size(), 0u);
    std::vector<uint32_t> before(aux.full_before.begin(), aux.full_before.end());
    size_t last = before.size();  // the last block holding a full value
    for (size_t b = 0; b < before.size(); ++b)
        if (aux.full_mask[b]) last = b;
    ASSERT_LT(last, before.size());
    before[last] += uint32_t(aux.full.size());
    readers rd(*k);
    rd.compact.full_before = before.data();
    uint64_t i = last * 64;
    while (!((aux.full_mask[last] >> (i % 64)) & 1)) ++i;
    EXPECT_TRUE(rd.compact.aux_at(i) == cuda_fr::zero());
    EXPECT_EQ(rd.error, uint32_t(rows::FULL_INDEX_BEYOND));
}

}  // namespace
