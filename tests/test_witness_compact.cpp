// The compact witness: values 0 and Montgomery one stored as bits, the rest in full. Built, expanded and
// serialized back to the same values for every block boundary and mix; a corrupt buffer is refused naming
// what is wrong; and a witness_assignment keeps exactly what a proving_assignment keeps of the inputs and aux
// (built-in circuits and a 2 KiB PoRep partition), with the same row count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/circuits/registry.hpp"
#include "common/cs/linear_combination.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/witness/compact_vector_builder.hpp"
#include "common/witness/compact_vector_check.hpp"
#include "common/witness/compact_vector_expansion.hpp"
#include "common/witness/compact_vector_serialization.hpp"
#include "common/witness/witness_assignment.hpp"

namespace {

using namespace cuzk;
using ff::fr_t;

fr_t p_minus_1_raw() {
    auto m = fr_t::MODULUS;
    m[0] -= 1;
    return fr_t::from_raw(m);
}

// Values the classification must get right: 0 and 1 as bits; -1, 2, the raw limbs of p - 1 and the raw limb 1
// (which is not Montgomery one) in full.
std::vector<fr_t> special_values() {
    fr_t raw_one = fr_t::zero();
    raw_one.l[0] = 1;
    return {fr_t::zero(), fr_t::one(), cs::FR_MINUS_ONE, fr_t::from_u64(2), p_minus_1_raw(), raw_one};
}

witness::compact_vector_builder build(const std::vector<fr_t>& values) {
    witness::compact_vector_builder b;
    for (const fr_t& v : values) b.push_back(v);
    return b;
}

// 8-byte aligned storage for a serialized vector.
struct buffer {
    std::vector<std::uint64_t> words;
    explicit buffer(std::size_t bytes) : words((bytes + 7) / 8) {}
    std::span<std::byte> bytes(std::size_t n) { return {reinterpret_cast<std::byte*>(words.data()), n}; }
};

void expect_same(const witness::compact_vector_view& v, const std::vector<fr_t>& values, const std::string& what) {
    ASSERT_EQ(v.size, values.size()) << what;
    EXPECT_NO_THROW(witness::check_consistent(v)) << what;
    for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(witness::value_at(v, i), values[i]) << what << " value " << i;
    EXPECT_EQ(witness::expand(v), values) << what;
}

void round_trip(const std::vector<fr_t>& values, const std::string& what) {
    auto b = build(values);
    const auto v = b.view();
    std::size_t full = 0;
    for (const fr_t& x : values) full += !(x == fr_t::zero() || x == fr_t::one());
    EXPECT_EQ(b.full_count(), full) << what;
    EXPECT_EQ(v.blocks(), (values.size() + 63) / 64) << what;
    expect_same(v, values, what);

    const std::uint64_t bytes = witness::serialized_bytes(v);
    EXPECT_EQ(bytes % 8, 0u) << what;
    buffer buf(bytes + 64);
    EXPECT_EQ(witness::write(buf.bytes(bytes + 64), v), bytes) << what;
    const auto back = witness::read(buf.bytes(bytes));
    expect_same(back, values, what + " (read back)");
    // Trailing bytes (the rest of a ring slot) are not part of it.
    EXPECT_EQ(witness::serialized_bytes(witness::read(buf.bytes(bytes + 64))), bytes) << what;
}

std::vector<fr_t> random_mix(std::size_t n, std::mt19937_64& rng, unsigned full_percent) {
    const auto special = special_values();
    std::vector<fr_t> out(n);
    for (fr_t& x : out) {
        const unsigned r = unsigned(rng() % 100);
        if (r < full_percent)
            x = rng() % 2 ? fr_t::random(rng) : special[2 + rng() % (special.size() - 2)];
        else
            x = r % 2 ? fr_t::one() : fr_t::zero();
    }
    return out;
}

TEST(CompactVector, RoundTripsAtEveryBlockBoundary) {
    std::mt19937_64 rng(30);
    for (std::size_t n : {0u, 1u, 2u, 63u, 64u, 65u, 127u, 128u, 129u, 1000u}) {
        const std::string at = "n=" + std::to_string(n);
        round_trip(random_mix(n, rng, 10), "mix " + at);
        round_trip(random_mix(n, rng, 100), "all full " + at);
        round_trip(std::vector<fr_t>(n, fr_t::zero()), "all zero " + at);
        round_trip(std::vector<fr_t>(n, fr_t::one()), "all one " + at);
        round_trip(random_mix(n, rng, 0), "all bits " + at);
    }
}

// Appending another vector's view gives what pushing its values one by one gives, wherever the join falls in a
// block and whatever the part's length (parallel synthesis joins its parts this way).
TEST(CompactVector, AppendEqualsPushingEveryValueAtAnyOffset) {
    std::mt19937_64 rng(33);
    for (std::size_t head : {0u, 1u, 5u, 63u, 64u, 65u, 130u}) {
        for (std::size_t tail : {0u, 1u, 2u, 59u, 63u, 64u, 65u, 200u}) {
            for (unsigned full_percent : {0u, 10u, 100u}) {
                const std::string what = "head " + std::to_string(head) + " tail " + std::to_string(tail) + " full " +
                                         std::to_string(full_percent) + "%";
                auto values = random_mix(head, rng, full_percent);
                const auto more = random_mix(tail, rng, full_percent);
                auto joined = build(values);
                const auto part = build(more);
                joined.append(part.view());
                values.insert(values.end(), more.begin(), more.end());
                expect_same(joined.view(), values, what);
                EXPECT_EQ(joined.full_count(), build(values).full_count()) << what;
                // And the builder goes on as usual after an append.
                joined.push_back(cs::FR_MINUS_ONE);
                joined.push_back(fr_t::one());
                values.push_back(cs::FR_MINUS_ONE);
                values.push_back(fr_t::one());
                expect_same(joined.view(), values, what + " then pushed");
            }
        }
    }
}

TEST(CompactVector, AppendRefusesAViewWhoseMasksNameMissingFullValues) {
    auto part = build({cs::FR_MINUS_ONE, fr_t::zero()});
    auto view = part.view();
    view.full = view.full.first(0);
    witness::compact_vector_builder b;
    EXPECT_THROW(b.append(view), std::invalid_argument);
}

TEST(CompactVector, ClassifiesExactlyZeroAndMontgomeryOne) {
    const auto values = special_values();
    auto b = build(values);
    EXPECT_EQ(b.size(), values.size());
    EXPECT_EQ(b.full_count(), values.size() - 2);  // -1, 2, raw p - 1, raw 1
    EXPECT_EQ(b.view().full_mask[0], 0b111100u);
    EXPECT_EQ(b.view().bit_value[0], 0b10u);
    round_trip(values, "special values");
}

TEST(CompactVector, ExpandsLargeVectorsInParallelToTheSameValues) {
    std::mt19937_64 rng(31);
    const auto values = random_mix((std::size_t(1) << 18) + 37, rng, 2);
    auto b = build(values);
    const auto v = b.view();
    EXPECT_EQ(witness::expand(v), values);
    std::vector<fr_t> out(values.size());
    witness::expand_into(v, out);
    EXPECT_EQ(out, values);
    std::vector<fr_t> wrong(values.size() - 1);
    EXPECT_THROW(witness::expand_into(v, wrong), std::invalid_argument);
}

TEST(CompactVector, ClearKeepsTheMemoryAndStartsAgain) {
    std::mt19937_64 rng(32);
    const auto first = random_mix(5000, rng, 20);
    auto b = build(first);
    const std::uint64_t first_full = b.full_count();
    const auto* mask = b.view().full_mask.data();
    const auto* full = b.view().full.data();
    b.clear();
    EXPECT_EQ(b.size(), 0u);
    EXPECT_EQ(b.view().blocks(), 0u);
    const auto second = random_mix(4000, rng, 20);
    for (const fr_t& x : second) b.push_back(x);
    EXPECT_EQ(b.view().full_mask.data(), mask);
    ASSERT_LE(b.full_count(), first_full);
    EXPECT_EQ(b.view().full.data(), full);
    expect_same(b.view(), second, "after clear");
}

// --- refusals of a corrupt buffer -------------------------------------------------------------------------------

struct serialized {
    std::vector<fr_t> values;
    buffer buf{0};
    std::uint64_t bytes = 0;

    // 130 values: 3 blocks (an odd count, so full_before is padded), the last holding 2 values.
    serialized() {
        std::mt19937_64 rng(33);
        values = random_mix(130, rng, 10);
        values[128] = fr_t::from_u64(7);  // full in the last block
        values[129] = fr_t::one();
        values[5] = fr_t::from_u64(9);
        values[6] = fr_t::one();
        auto b = build(values);
        bytes = witness::serialized_bytes(b.view());
        buf = buffer(bytes);
        witness::write(buf.bytes(bytes), b.view());
    }
    std::byte* at(std::size_t offset) { return buf.bytes(bytes).data() + offset; }
    template <class T>
    void put(std::size_t offset, T x) { std::memcpy(at(offset), &x, sizeof x); }
    template <class T>
    T get(std::size_t offset) {
        T x;
        std::memcpy(&x, at(offset), sizeof x);
        return x;
    }
    static constexpr std::size_t full_mask_at = 32, bit_value_at = 32 + 24, full_before_at = 32 + 48,
                                 full_at = 32 + 48 + 16;
};

void expect_refused(std::span<const std::byte> bytes, const std::string& needle) {
    try {
        witness::read(bytes);
        ADD_FAILURE() << "accepted; expected a refusal naming '" << needle << "'";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(CompactVectorBytes, WriteNamesBothSizesWhenTheBufferIsTooSmall) {
    serialized s;
    auto b = build(s.values);
    buffer small(s.bytes);
    try {
        witness::write(small.bytes(s.bytes - 8), b.view());
        FAIL() << "wrote into too small a buffer";
    } catch (const std::length_error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(std::to_string(s.bytes)), std::string::npos) << m;
        EXPECT_NE(m.find(std::to_string(s.bytes - 8)), std::string::npos) << m;
    }
}

TEST(CompactVectorBytes, WriteRefusesAViewWhoseArraysDisagreeWithItsSize) {
    serialized s;
    auto b = build(s.values);
    auto v = b.view();
    v.size = 200;  // 4 blocks, the arrays have 3
    buffer big(4096);
    EXPECT_THROW(witness::write(big.bytes(4096), v), std::invalid_argument);
}

// Arrays of 64 MiB and more are copied in pieces on several threads: the bytes are those of one copy.
TEST(CompactVectorBytes, LargeVectorsAreWrittenInPiecesToTheSameBytes) {
    std::mt19937_64 rng(34);
    const std::size_t n = (std::size_t(70) << 20) / sizeof(fr_t) + 12345;  // > 64 MiB of full values
    std::vector<fr_t> values(n);
    for (auto& v : values) v = rng() % 4 == 0 ? fr_t::one() : fr_t::from_u64(rng() | 2);
    const auto b = build(values);
    const auto v = b.view();
    const std::uint64_t bytes = witness::serialized_bytes(v);
    buffer buf(bytes);
    ASSERT_EQ(witness::write(buf.bytes(bytes), v), bytes);
    const auto back = witness::read(buf.bytes(bytes));
    ASSERT_EQ(back.size, n);
    EXPECT_TRUE(std::equal(back.full.begin(), back.full.end(), v.full.begin(), v.full.end()));
    EXPECT_TRUE(std::equal(back.full_mask.begin(), back.full_mask.end(), v.full_mask.begin(), v.full_mask.end()));
    EXPECT_EQ(witness::value_at(back, n - 1), values[n - 1]);
}

TEST(CompactVectorBytes, TheReferenceBufferReadsBack) {
    serialized s;
    EXPECT_EQ(s.get<std::uint32_t>(serialized::full_before_at + 12), 0u);  // padding
    expect_same(witness::read(s.buf.bytes(s.bytes)), s.values, "reference");
}

TEST(CompactVectorBytes, RefusesEveryTruncation) {
    serialized s;
    for (std::size_t n = 0; n < s.bytes; n += 4) {
        SCOPED_TRACE(n);
        EXPECT_THROW(witness::read(s.buf.bytes(n)), std::runtime_error);
    }
    expect_refused(s.buf.bytes(16), "header");
    expect_refused(s.buf.bytes(s.bytes - 8), "buffer holds");
}

TEST(CompactVectorBytes, RefusesAMisalignedStart) {
    serialized s;
    buffer shifted(s.bytes + 8);
    auto all = shifted.bytes(s.bytes + 8);
    std::memcpy(all.data() + 4, s.at(0), s.bytes);
    expect_refused(all.subspan(4, s.bytes), "aligned");
}

TEST(CompactVectorBytes, RefusesAForeignOrOtherVersionHeader) {
    {
        serialized s;
        s.put<std::uint8_t>(0, 'X');
        expect_refused(s.buf.bytes(s.bytes), "magic");
    }
    {
        serialized s;
        s.put<std::uint32_t>(8, witness::compact_layout_version + 1);
        expect_refused(s.buf.bytes(s.bytes), "layout version");
    }
    {
        serialized s;
        s.put<std::uint32_t>(12, 1);
        expect_refused(s.buf.bytes(s.bytes), "offset 12");
    }
}

TEST(CompactVectorBytes, RefusesCountsBeyondTheBuffer) {
    serialized s;
    s.put<std::uint64_t>(16, 193);  // a fourth block: 16 more bytes of arrays than there are
    expect_refused(s.buf.bytes(s.bytes), "buffer holds");
    s.put<std::uint64_t>(16, ~std::uint64_t(0));
    expect_refused(s.buf.bytes(s.bytes), "buffer holds");
    s.put<std::uint64_t>(16, 130);
    s.put<std::uint64_t>(24, s.get<std::uint64_t>(24) + 1);
    expect_refused(s.buf.bytes(s.bytes), "buffer holds");
    s.put<std::uint64_t>(24, ~std::uint64_t(0) / 2);
    expect_refused(s.buf.bytes(s.bytes), "full values among");
    s.put<std::uint64_t>(16, ~std::uint64_t(0));
    expect_refused(s.buf.bytes(s.bytes), "over 2^64");
}

TEST(CompactVectorBytes, RefusesInconsistentBlocks) {
    {
        serialized s;  // a full value counted before block 1 that is not there
        s.put<std::uint32_t>(serialized::full_before_at + 4, s.get<std::uint32_t>(serialized::full_before_at + 4) + 1);
        expect_refused(s.buf.bytes(s.bytes), "full_before[1]");
    }
    {
        serialized s;
        s.put<std::uint32_t>(serialized::full_before_at, 1);
        expect_refused(s.buf.bytes(s.bytes), "full_before[0]");
    }
    {
        serialized s;  // value 5 (full) also a one bit
        s.put<std::uint64_t>(serialized::bit_value_at, s.get<std::uint64_t>(serialized::bit_value_at) | 1u << 5);
        expect_refused(s.buf.bytes(s.bytes), "value 5 is both full and a one bit");
    }
    {
        serialized s;  // a bit at value 130, beyond the size
        s.put<std::uint64_t>(serialized::bit_value_at + 16, s.get<std::uint64_t>(serialized::bit_value_at + 16) | 4u);
        expect_refused(s.buf.bytes(s.bytes), "beyond the size 130");
    }
    {
        serialized s;
        s.put<std::uint64_t>(serialized::full_mask_at + 16, s.get<std::uint64_t>(serialized::full_mask_at + 16) | 8u);
        expect_refused(s.buf.bytes(s.bytes), "beyond the size 130");
    }
    {
        serialized s;  // value 128 no longer full: the mask counts one less than |full| holds
        s.put<std::uint64_t>(serialized::full_mask_at + 16, s.get<std::uint64_t>(serialized::full_mask_at + 16) & ~1ull);
        expect_refused(s.buf.bytes(s.bytes), "full_mask marks");
    }
    {
        serialized s;
        s.put<std::uint32_t>(serialized::full_before_at + 12, 0xdead);
        expect_refused(s.buf.bytes(s.bytes), "padding");
    }
}

TEST(CompactVectorBytes, RefusesFullValuesThatAreNotCanonical) {
    {
        serialized s;
        auto m = fr_t::MODULUS;
        s.put(serialized::full_at + 32, m);
        expect_refused(s.buf.bytes(s.bytes), "full value 1 is not reduced");
    }
    {
        serialized s;
        s.put(serialized::full_at, fr_t::one());
        expect_refused(s.buf.bytes(s.bytes), "full value 0 is 1");
    }
    {
        serialized s;
        s.put(serialized::full_at + 32, fr_t::zero());
        expect_refused(s.buf.bytes(s.bytes), "full value 1 is 0");
    }
}

// --- witness_assignment against proving_assignment ----------------------------------------------------------------

void expect_same_witness(const circuits::circuit& circuit) {
    SCOPED_TRACE(circuit.name());
    groth16::proving_assignment pa;
    circuit.synthesize(pa);
    pa.finish();
    witness::witness_assignment wa;
    circuit.synthesize(wa);

    EXPECT_EQ(wa.num_circuit_constraints(), pa.num_circuit_constraints());
    EXPECT_EQ(wa.prover_rows(), pa.num_constraints());
    ASSERT_EQ(wa.num_inputs(), pa.num_inputs());
    EXPECT_TRUE(std::equal(wa.inputs().begin(), wa.inputs().end(), pa.inputs().begin()));
    const auto pub = circuit.public_inputs();
    EXPECT_TRUE(std::equal(pub.begin(), pub.end(), wa.inputs().begin() + 1));
    ASSERT_EQ(wa.num_aux(), pa.num_aux());
    EXPECT_NO_THROW(witness::check_consistent(wa.aux()));
    EXPECT_EQ(witness::expand(wa.aux()), pa.aux());

    // Through bytes, and again after clear() into the same memory.
    buffer buf(witness::serialized_bytes(wa.aux()));
    const auto bytes = witness::write(buf.bytes(buf.words.size() * 8), wa.aux());
    EXPECT_EQ(witness::expand(witness::read(buf.bytes(bytes))), pa.aux());
    wa.clear();
    EXPECT_EQ(wa.num_inputs(), 1u);
    EXPECT_EQ(wa.num_aux(), 0u);
    EXPECT_EQ(wa.num_circuit_constraints(), 0u);
    circuit.synthesize(wa);
    EXPECT_EQ(wa.num_circuit_constraints(), pa.num_circuit_constraints());
    EXPECT_EQ(witness::expand(wa.aux()), pa.aux());
    std::printf("%s: %llu rows, %llu aux (%llu full), compact %llu bytes against %llu full\n", circuit.name().c_str(),
                (unsigned long long)wa.num_circuit_constraints(), (unsigned long long)wa.num_aux(),
                (unsigned long long)wa.aux().full.size(), (unsigned long long)witness::serialized_bytes(wa.aux()),
                (unsigned long long)(32 * wa.num_aux()));
}

TEST(WitnessAssignment, KeepsWhatProvingAssignmentKeepsForBuiltInCircuits) {
    for (const char* spec : {"mul:1", "mul:64@3", "mul:1000@w", "sha256:1", "sha256:3@w"})
        expect_same_witness(*circuits::make_circuit(spec));
}

TEST(WitnessAssignment, KeepsWhatProvingAssignmentKeepsForA2KiBPorepPartition) {
    expect_same_witness(*circuits::make_circuit("porep:StackedDrg2KiBV1_1@witness-compact"));
}

}  // namespace
