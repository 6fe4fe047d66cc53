// The R1CS matrices recorded once per circuit (common/r1cs): times a witness they give the prover's rows
// a, b, c and the densities that direct synthesis into a proving assignment gives, for the built-in circuits
// and a 2 KiB PoRep partition; the counting mode agrees with the recording; the matrix file round-trips and
// refuses, naming the file, what is truncated, foreign, of another version or corrupt.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stop_token>
#include <string>

#include "common/circuits/registry.hpp"
#include "common/cs/linear_combination.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/porep/porep_circuit.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/r1cs/matrix_counter.hpp"
#include "common/r1cs/matrix_file.hpp"
#include "common/r1cs/matrix_product.hpp"
#include "common/r1cs/matrix_recorder.hpp"
#include "common/util/errors.hpp"

namespace {

using namespace cuzk;
using ff::fr_t;
namespace fs = std::filesystem;

groth16::proving_assignment synthesize_directly(const circuits::circuit& c) {
    groth16::proving_assignment pa;
    c.synthesize(pa);
    pa.finish();
    return pa;
}

// The index of the first entry where |x| and |y| differ, or -1.
long first_difference(const std::vector<fr_t>& x, const std::vector<fr_t>& y) {
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i)
        if (x[i] != y[i]) return long(i);
    return x.size() == y.size() ? -1 : long(std::min(x.size(), y.size()));
}

void expect_same_as_direct_synthesis(const r1cs::r1cs_matrices& m, const groth16::proving_assignment& pa) {
    ASSERT_EQ(m.circuit_rows, pa.num_circuit_constraints());
    ASSERT_EQ(m.num_inputs, pa.num_inputs());
    ASSERT_EQ(m.num_aux, pa.num_aux());
    ASSERT_EQ(m.prover_rows(), pa.num_constraints());
    const r1cs::prover_rows rows = r1cs::evaluate_rows(m, pa.inputs(), pa.aux());
    EXPECT_EQ(first_difference(rows.a, pa.a()), -1);
    EXPECT_EQ(first_difference(rows.b, pa.b()), -1);
    EXPECT_EQ(first_difference(rows.c, pa.c()), -1);
    EXPECT_EQ(m.a_aux_density, pa.a_aux_density().words());
    EXPECT_EQ(m.b_input_density, pa.b_input_density().words());
    EXPECT_EQ(m.b_aux_density, pa.b_aux_density().words());
}

void expect_equal(const r1cs::r1cs_matrices& x, const r1cs::r1cs_matrices& y) {
    EXPECT_EQ(x.circuit_rows, y.circuit_rows);
    EXPECT_EQ(x.num_inputs, y.num_inputs);
    EXPECT_EQ(x.num_aux, y.num_aux);
    EXPECT_EQ(first_difference(x.coefficients, y.coefficients), -1);
    for (auto [p, q] : {std::pair{&x.a, &y.a}, std::pair{&x.b, &y.b}, std::pair{&x.c, &y.c}}) {
        EXPECT_EQ(p->row_start, q->row_start);
        EXPECT_EQ(p->column, q->column);
        EXPECT_EQ(p->coeff, q->coeff);
    }
    EXPECT_EQ(x.a_aux_density, y.a_aux_density);
    EXPECT_EQ(x.b_input_density, y.b_input_density);
    EXPECT_EQ(x.b_aux_density, y.b_aux_density);
}

// The cases gadgets produce that a plain chain does not: an input allocated after aux variables (columns
// renumbered once the input count is final), the same variable twice in a row (terms sum), a zero
// coefficient (its variable still dense), ONE and an input in B, an aux variable only in C (in no density),
// an empty row, and coefficients other than +-1.
class edge_circuit final : public circuits::circuit {
public:
    std::string name() const override { return "edge"; }
    std::vector<fr_t> public_inputs() const override { return {fr_t::from_u64(12)}; }
    void synthesize(cs::constraint_system& cs) const override {
        const fr_t three = fr_t::from_u64(3), four = fr_t::from_u64(4);
        cs::variable x = cs.alloc(three);
        cs::variable y = cs.alloc(four);
        cs::variable out = cs.alloc_input(three * four);
        cs::variable unused_in_ab = cs.alloc(fr_t::from_u64(7));
        cs.enforce(cs::linear_combination(x), cs::linear_combination(y), cs::linear_combination(out));
        cs::linear_combination twice_x(x);
        twice_x.add_term(x);
        twice_x.add_term(y, fr_t::zero());
        cs::linear_combination b = cs::linear_combination::constant(fr_t::from_u64(2));
        b.sub_term(out);
        b.add_term(out);
        cs::linear_combination c(x, fr_t::from_u64(4));
        c.add_term(unused_in_ab, fr_t::zero());
        cs.enforce(twice_x, b, c);  // (x + x) * 2 = 4x
        cs.enforce(cs::linear_combination(), cs::linear_combination(), cs::linear_combination());
        cs::linear_combination seven = cs::linear_combination::constant(fr_t::from_u64(7));
        cs.enforce(cs::linear_combination(unused_in_ab), cs::linear_combination(cs.one()), seven);
    }
};

class RecordedBuiltIn : public testing::TestWithParam<std::string> {};

TEST_P(RecordedBuiltIn, RowsAndDensitiesEqualDirectSynthesis) {
    auto circuit = circuits::make_circuit(GetParam());
    const r1cs::r1cs_matrices m = r1cs::record_matrices(*circuit);
    EXPECT_EQ(m.coefficients.at(0), cs::FR_ONE);
    EXPECT_EQ(m.coefficients.at(1), cs::FR_MINUS_ONE);
    expect_same_as_direct_synthesis(m, synthesize_directly(*circuit));
}

TEST_P(RecordedBuiltIn, CounterMatchesRecording) {
    auto circuit = circuits::make_circuit(GetParam());
    r1cs::matrix_counter counter;
    circuit->synthesize(counter);
    EXPECT_EQ(counter.sizes(), r1cs::sizes_of(r1cs::record_matrices(*circuit)));
}

// A recording asked to stop gives up within 2^16 constraints of the request, naming the pass and the circuit (gpud
// stopping while it records a 32 GiB PoRep circuit's 130 M constraints); one never asked gives the same matrices.
TEST(R1csMatrices, ARecordingAskedToStopIsAbandonedWithin65536Constraints) {
    std::stop_source stop;
    std::uint64_t enforced = 0;
    const r1cs::synthesize_fn long_circuit = [&](cs::constraint_system& cs) {
        const cs::variable x = cs.alloc(fr_t::from_u64(3));
        for (int i = 0; i < 300000; ++i) {
            if (++enforced == 100000) stop.request_stop();
            cs.enforce(cs::linear_combination(x), cs::linear_combination(cs.one()), cs::linear_combination(x));
        }
    };
    try {
        r1cs::record_matrices(long_circuit, stop.get_token(), "the long circuit");
        FAIL() << "the recording went on after the stop";
    } catch (const abandoned_error& e) {
        EXPECT_STREQ(e.what(), "counting the constraints of the long circuit abandoned after 131072 constraints (asked "
                               "to stop)");
    }
    EXPECT_EQ(enforced, 131072u);  // the counting pass, stopped at its first look after the request

    const auto circuit = circuits::make_circuit("mul:100");
    std::stop_source never;
    expect_same_as_direct_synthesis(r1cs::record_matrices(*circuit, never.get_token()), synthesize_directly(*circuit));
}

INSTANTIATE_TEST_SUITE_P(Circuits, RecordedBuiltIn, testing::Values("mul:100", "sha256:2@r1cs"),
                         [](const testing::TestParamInfo<std::string>& p) {
                             return p.param.substr(0, p.param.find(':'));
                         });

TEST(R1csMatrices, EdgeCasesEqualDirectSynthesis) {
    edge_circuit circuit;
    const r1cs::r1cs_matrices m = r1cs::record_matrices(circuit);
    ASSERT_EQ(m.num_inputs, 2u);
    EXPECT_EQ(m.a.row_start, (std::vector<uint64_t>{0, 1, 4, 4, 5}));
    EXPECT_EQ(m.a.column, (std::vector<uint32_t>{2, 2, 2, 3, 4}));  // aux j is column 2 + j
    EXPECT_EQ(m.b.column, (std::vector<uint32_t>{3, 0, 1, 1, 0}));
    EXPECT_EQ(m.c.column, (std::vector<uint32_t>{1, 2, 4, 0}));
    EXPECT_EQ(m.coefficients.size(), 6u);  // 1, -1, 0, 2, 4, 7
    groth16::proving_assignment pa = synthesize_directly(circuit);
    EXPECT_EQ(pa.c()[3], fr_t::from_u64(7));
    expect_same_as_direct_synthesis(m, pa);
}

TEST(R1csMatrices, MoreThan65536CoefficientsAreRefused) {
    class many_coefficients final : public circuits::circuit {
    public:
        std::string name() const override { return "many-coefficients"; }
        std::vector<fr_t> public_inputs() const override { return {}; }
        void synthesize(cs::constraint_system& cs) const override {
            cs::variable x = cs.alloc(fr_t::one());
            cs::linear_combination lc;
            for (uint64_t k = 2; k < 2 + 65535; ++k) lc.add_term(x, fr_t::from_u64(k));  // -1 is not among them
            cs.enforce(lc, cs::linear_combination(cs.one()), lc);
        }
    };
    try {
        r1cs::record_matrices(many_coefficients());
        FAIL() << "65537 distinct coefficients were accepted";
    } catch (const std::length_error& e) {
        EXPECT_NE(std::string(e.what()).find("many-coefficients"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("65536 distinct coefficients"), std::string::npos) << e.what();
    }
}

TEST(R1csMatrices, RecordingThatDiffersFromTheCountIsRefused) {
    auto counted = circuits::make_circuit("mul:10");
    r1cs::matrix_counter counter;
    counted->synthesize(counter);
    r1cs::matrix_recorder recorder(counter.sizes());
    circuits::make_circuit("mul:11")->synthesize(recorder);
    EXPECT_THROW(recorder.finish(), std::logic_error);
}

TEST(R1csMatrices, WitnessOfAnotherCircuitIsRefusedNamingBothSizes) {
    const r1cs::r1cs_matrices m = r1cs::record_matrices(*circuits::make_circuit("mul:10"));
    groth16::proving_assignment pa = synthesize_directly(*circuits::make_circuit("mul:11"));
    try {
        r1cs::evaluate_rows(m, pa.inputs(), pa.aux());
        FAIL() << "a witness of mul:11 was taken by the matrices of mul:10";
    } catch (const input_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(std::to_string(pa.num_aux()) + " aux"), std::string::npos) << what;
        EXPECT_NE(what.find(std::to_string(m.num_aux) + " aux"), std::string::npos) << what;
    }
    std::vector<fr_t> inputs = pa.inputs();
    inputs[0] = fr_t::from_u64(2);
    const r1cs::r1cs_matrices same = r1cs::record_matrices(*circuits::make_circuit("mul:11"));
    EXPECT_THROW(r1cs::evaluate_rows(same, inputs, pa.aux()), input_error);
}

// --- the matrix file ---------------------------------------------------------------------------------------

class MatrixFile : public testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() / ("cuzk_r1cs_matrices_" + std::to_string(::getpid()) + "_" +
                                           testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir);
        path = dir / "mul.r1cs";
        circuit = circuits::make_circuit("sha256:1");
        m = r1cs::record_matrices(*circuit);
        r1cs::write_matrix_file(path, m, circuit->name());
        bytes = read_bytes(path);
    }
    void TearDown() override { fs::remove_all(dir); }

    static std::string read_bytes(const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }
    void write_bytes(const std::string& b) const {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(b.data(), std::streamsize(b.size()));
    }
    template <class T>
    void patch(size_t offset, T value) {
        std::memcpy(bytes.data() + offset, &value, sizeof(value));
        write_bytes(bytes);
    }
    // Reading is refused with an input_error naming the file and containing |reason|.
    void expect_refused(const std::string& reason) const {
        try {
            r1cs::read_matrix_file(path);
            FAIL() << "accepted; expected: " << reason;
        } catch (const input_error& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(path.string()), std::string::npos) << what;
            EXPECT_NE(what.find(reason), std::string::npos) << what;
        }
    }

    fs::path dir, path;
    std::unique_ptr<circuits::circuit> circuit;
    r1cs::r1cs_matrices m;
    std::string bytes;
};

TEST_F(MatrixFile, RoundTripsWithItsCircuitAndSize) {
    EXPECT_EQ(bytes.size(), r1cs::matrix_file_bytes(r1cs::sizes_of(m), circuit->name().size()));
    EXPECT_EQ(bytes.substr(0, 8), "CUZKR1CS");
    r1cs::matrix_file_contents read = r1cs::read_matrix_file(path);
    EXPECT_EQ(read.circuit, circuit->name());
    expect_equal(read.matrices, m);
    expect_equal(r1cs::read_matrix_file(path, circuit->name()), m);
    for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path(), path) << "left behind";
}

TEST_F(MatrixFile, MatricesOfAnotherCircuitAreRefusedNamingBoth) {
    try {
        r1cs::read_matrix_file(path, "mul:100");
        FAIL();
    } catch (const input_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(path.string()), std::string::npos) << what;
        EXPECT_NE(what.find(circuit->name()), std::string::npos) << what;
        EXPECT_NE(what.find("mul:100"), std::string::npos) << what;
    }
}

TEST_F(MatrixFile, TruncatedFileIsRefused) {
    const std::string whole = bytes;
    for (size_t keep : {size_t(0), size_t(5), size_t(60), whole.size() / 2, whole.size() - 8}) {
        SCOPED_TRACE(keep);
        write_bytes(whole.substr(0, keep));
        expect_refused(keep < 8 ? "too short" : "truncated");
    }
}

TEST_F(MatrixFile, BytesAfterTheArraysAreRefused) {
    write_bytes(bytes + std::string(8, '\0'));
    expect_refused("bytes trail");
}

TEST_F(MatrixFile, ForeignFileIsRefused) {
    bytes.replace(0, 8, "CUZKPARM");
    write_bytes(bytes);
    expect_refused("not an R1CS matrix file");
}

TEST_F(MatrixFile, OtherVersionIsRefused) {
    patch(8, uint32_t(r1cs::MATRIX_FILE_VERSION + 1));
    expect_refused("format version " + std::to_string(r1cs::MATRIX_FILE_VERSION + 1));
}

TEST_F(MatrixFile, CountsBeyondTheLengthAreRefusedBeforeAllocating) {
    patch(48, uint64_t(1) << 40);  // a_terms: 6 TiB of terms, never allocated
    expect_refused("the file has " + std::to_string(bytes.size()));
    patch(48, uint64_t(m.a.non_zeros()));
    patch(16, ~uint64_t(0));  // circuit_rows: a length beyond 64 bits
    expect_refused("more than 2^64");
}

TEST_F(MatrixFile, CorruptHeaderOrArraysAreRefused) {
    const std::string whole = bytes;
    bytes[r1cs::MATRIX_FILE_HEADER_BYTES] ^= 1;  // the circuit's name
    write_bytes(bytes);
    expect_refused("header does not match");
    bytes = whole;
    bytes[whole.size() / 2] ^= 0x10;
    write_bytes(bytes);
    expect_refused("do not match their digest");
}

TEST_F(MatrixFile, OutOfRangeIndicesAreRefused) {
    r1cs::r1cs_matrices bad = m;
    bad.b.column[3] = uint32_t(m.z_size());  // one past z: a kernel would read beyond the witness
    r1cs::write_matrix_file(path, bad, circuit->name());
    expect_refused("B's term 3 names column " + std::to_string(m.z_size()));
    bad = m;
    bad.c.coeff.back() = uint16_t(m.coefficients.size());
    r1cs::write_matrix_file(path, bad, circuit->name());
    expect_refused("names coefficient " + std::to_string(m.coefficients.size()));
}

// --- a 2 KiB PoRep partition -------------------------------------------------------------------------------

class PorepMatrices : public testing::Test {
protected:
    // One recording and one direct synthesis (~2.7 M rows each) for the suite.
    static void SetUpTestSuite() {
        const auto t0 = std::chrono::steady_clock::now();
        matrices = std::make_unique<r1cs::r1cs_matrices>(
            r1cs::record_porep_matrices(porep::registered_proof_by_name("StackedDrg2KiBV1_1")));
        const auto t1 = std::chrono::steady_clock::now();
        sizes = r1cs::sizes_of(*matrices);
        std::printf("2 KiB partition: %llu rows, %llu inputs, %llu aux, non-zeros A %llu B %llu C %llu, "
                    "%llu coefficients, file %llu bytes, recorded in %.2f s\n",
                    (unsigned long long)sizes.circuit_rows, (unsigned long long)sizes.num_inputs,
                    (unsigned long long)sizes.num_aux, (unsigned long long)sizes.a_terms,
                    (unsigned long long)sizes.b_terms, (unsigned long long)sizes.c_terms,
                    (unsigned long long)sizes.coefficients,
                    (unsigned long long)r1cs::matrix_file_bytes(sizes, 24),
                    std::chrono::duration<double>(t1 - t0).count());
    }
    static void TearDownTestSuite() { matrices.reset(); }

    static inline std::unique_ptr<r1cs::r1cs_matrices> matrices;
    static inline r1cs::matrix_sizes sizes;
};

TEST_F(PorepMatrices, RowsAndDensitiesEqualDirectSynthesis) {
    auto circuit = circuits::make_circuit("porep:StackedDrg2KiBV1_1");  // a sealed sample sector, partition 0
    expect_same_as_direct_synthesis(*matrices, synthesize_directly(*circuit));
}

TEST_F(PorepMatrices, CounterMatchesRecording) {
    r1cs::matrix_counter counter;
    porep::porep_partition_circuit(porep::registered_proof_by_name("StackedDrg2KiBV1_1")).synthesize(counter);
    EXPECT_EQ(counter.sizes(), sizes);
}

TEST_F(PorepMatrices, FileRoundTrips) {
    const fs::path path = fs::temp_directory_path() / ("cuzk_r1cs_porep_" + std::to_string(::getpid()) + ".r1cs");
    const std::string name = "porep:StackedDrg2KiBV1_1";
    r1cs::write_matrix_file(path, *matrices, name);
    EXPECT_EQ(fs::file_size(path), r1cs::matrix_file_bytes(sizes, name.size()));
    expect_equal(r1cs::read_matrix_file(path, name), *matrices);
    fs::remove(path);
}

}  // namespace

// The NTT domain that holds a number of rows: the least power of two at or above it.
TEST(R1csMatrices, DomainLogIsTheLeastPowerOfTwoHoldingTheRows) {
    EXPECT_EQ(r1cs::domain_log(0), 0u);
    EXPECT_EQ(r1cs::domain_log(1), 0u);
    EXPECT_EQ(r1cs::domain_log(2), 1u);
    EXPECT_EQ(r1cs::domain_log(3), 2u);
    EXPECT_EQ(r1cs::domain_log(4), 2u);
    EXPECT_EQ(r1cs::domain_log(5), 3u);
    EXPECT_EQ(r1cs::domain_log(std::uint64_t(1) << 27), 27u);
    EXPECT_EQ(r1cs::domain_log((std::uint64_t(1) << 27) + 1), 28u);
    r1cs::r1cs_matrices m;
    m.circuit_rows = 370590;  // the 32 GiB WinningPoSt circuit, 133 inputs: 2^19
    m.num_inputs = 133;
    EXPECT_EQ(m.prover_domain_log(), 19u);
}
