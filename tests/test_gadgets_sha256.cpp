// Boolean, UInt32, MultiEq, multipack and SHA256 gadgets: values against native computation,
// satisfaction in test_cs, rejection of tampered witnesses, and the published constraint costs.
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <random>

#include "common/cs/counting_cs.hpp"
#include "common/cs/test_cs.hpp"
#include "common/gadgets/multipack.hpp"
#include "common/gadgets/sha256.hpp"

using namespace cuzk;
using namespace cuzk::gadgets;
using ff::fr_t;

namespace {

// The four kinds of operand a boolean gadget meets, with a given logical value.
enum class operand { const_false_or_true, allocated, negated };

boolean make_operand(cs::test_cs& cs, operand kind, bool value) {
    switch (kind) {
        case operand::const_false_or_true: return boolean::constant(value);
        case operand::allocated: return boolean::alloc(cs, value);
        default: return boolean::alloc(cs, !value).negate();
    }
}

constexpr operand KINDS[] = {operand::const_false_or_true, operand::allocated, operand::negated};

std::vector<boolean> alloc_bits(cs::constraint_system& cs, std::span<const uint8_t> bytes) {
    std::vector<boolean> bits;
    for (uint8_t b : bytes)
        for (int i = 7; i >= 0; --i) bits.push_back(boolean::alloc(cs, (b >> i) & 1));
    return bits;
}

std::vector<uint8_t> bits_to_bytes(const std::vector<boolean>& bits) {
    std::vector<uint8_t> out(bits.size() / 8);
    for (size_t i = 0; i < bits.size(); ++i) out[i / 8] |= uint8_t(bits[i].value()) << (7 - i % 8);
    return out;
}

}  // namespace

// --- boolean ------------------------------------------------------------------------------------

TEST(Boolean, AllocatedBitIsConstrainedToZeroOrOne) {
    cs::test_cs cs;
    boolean b;
    {
        cs::namespace_scope ns(cs, "bit");
        b = boolean::alloc(cs, true);
    }
    EXPECT_EQ(cs.num_constraints(), 1u);
    EXPECT_TRUE(cs.is_satisfied());
    cs.set_value(b.var(), fr_t::zero());
    EXPECT_TRUE(cs.is_satisfied());
    cs.set_value(b.var(), fr_t::from_u64(2));
    EXPECT_EQ(cs.which_is_unsatisfied(), "bit/constraint 0");
}

TEST(Boolean, XorAndAndAreCorrectAndFreeAgainstConstants) {
    for (operand ka : KINDS)
        for (operand kb : KINDS)
            for (int av = 0; av < 2; ++av)
                for (int bv = 0; bv < 2; ++bv) {
                    cs::test_cs cs;
                    boolean a = make_operand(cs, ka, av), b = make_operand(cs, kb, bv);
                    size_t before = cs.num_constraints();
                    boolean x = xor_bits(cs, a, b);
                    size_t xor_cost = cs.num_constraints() - before;
                    boolean y = and_bits(cs, a, b);
                    size_t and_cost = cs.num_constraints() - before - xor_cost;
                    bool any_const = ka == operand::const_false_or_true || kb == operand::const_false_or_true;
                    SCOPED_TRACE(testing::Message() << int(ka) << int(kb) << av << bv);
                    EXPECT_EQ(x.value(), bool(av ^ bv));
                    EXPECT_EQ(y.value(), bool(av & bv));
                    EXPECT_EQ(xor_cost, any_const ? 0u : 1u);
                    EXPECT_EQ(and_cost, any_const ? 0u : 1u);
                    EXPECT_TRUE(cs.is_satisfied());
                    // The result is pinned: flipping an allocated result breaks the system.
                    if (!x.is_constant() && (ka != operand::const_false_or_true && kb != operand::const_false_or_true)) {
                        cs.set_value(x.var(), x.is_negated() == x.value() ? fr_t::one() : fr_t::zero());
                        EXPECT_FALSE(cs.is_satisfied());
                    }
                }
}

TEST(Boolean, ChAndMajMatchTheirTruthTablesForEveryOperandKind) {
    for (operand ka : KINDS)
        for (operand kb : KINDS)
            for (operand kc : KINDS)
                for (int v = 0; v < 8; ++v) {
                    bool av = v & 1, bv = v & 2, cv = v & 4;
                    cs::test_cs cs;
                    boolean a = make_operand(cs, ka, av), b = make_operand(cs, kb, bv), c = make_operand(cs, kc, cv);
                    size_t before = cs.num_constraints();
                    boolean ch = sha256_ch(cs, a, b, c);
                    size_t ch_cost = cs.num_constraints() - before;
                    boolean maj = sha256_maj(cs, a, b, c);
                    size_t maj_cost = cs.num_constraints() - before - ch_cost;
                    SCOPED_TRACE(testing::Message() << int(ka) << int(kb) << int(kc) << v);
                    EXPECT_EQ(ch.value(), (av && bv) != (!av && cv));
                    EXPECT_EQ(maj.value(), (int(av) + int(bv) + int(cv)) >= 2);
                    EXPECT_TRUE(cs.is_satisfied());
                    int consts = (ka == operand::const_false_or_true) + (kb == operand::const_false_or_true) +
                                 (kc == operand::const_false_or_true);
                    EXPECT_LE(ch_cost, 1u);
                    if (consts == 0) {
                        EXPECT_EQ(ch_cost, 1u);
                        EXPECT_EQ(maj_cost, 2u);  // b AND c, then the majority
                    }
                    if (consts == 3) {
                        EXPECT_EQ(ch_cost + maj_cost, 0u);
                    }
                    if (consts >= 1) {
                        EXPECT_LE(maj_cost, 1u);
                    }
                }
}

TEST(Boolean, EnforceEqualHoldsExactlyWhenValuesAgree) {
    for (operand ka : KINDS)
        for (operand kb : KINDS)
            for (int av = 0; av < 2; ++av)
                for (int bv = 0; bv < 2; ++bv) {
                    if (ka == operand::const_false_or_true && kb == operand::const_false_or_true) continue;
                    cs::test_cs cs;
                    boolean a = make_operand(cs, ka, av), b = make_operand(cs, kb, bv);
                    enforce_equal(cs, a, b);
                    EXPECT_EQ(cs.is_satisfied(), av == bv);
                }
    cs::test_cs cs;
    EXPECT_THROW(enforce_equal(cs, boolean::constant(true), boolean::constant(false)), std::invalid_argument);
    EXPECT_NO_THROW(enforce_equal(cs, boolean::constant(true), boolean::constant(true)));
}

TEST(Boolean, FieldAndU64DecompositionsAreLittleEndian) {
    cs::test_cs cs;
    auto bits = u64_into_bits_le(cs, 0x8000000000000005ULL);
    ASSERT_EQ(bits.size(), 64u);
    EXPECT_TRUE(bits[0].value());
    EXPECT_FALSE(bits[1].value());
    EXPECT_TRUE(bits[2].value());
    EXPECT_TRUE(bits[63].value());
    fr_t x = fr_t::from_hex("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000");  // r - 1
    auto fb = field_into_allocated_bits_le(cs, x);
    ASSERT_EQ(fb.size(), 255u);
    EXPECT_FALSE(fb[0].value());
    EXPECT_TRUE(fb[32].value());
    EXPECT_TRUE(fb[254].value());
    EXPECT_EQ(cs.num_constraints(), 64u + 255u);
    EXPECT_TRUE(cs.is_satisfied());
}

// --- uint32 -------------------------------------------------------------------------------------

TEST(UInt32, RotationsShiftsAndBitOrdersMatchNative) {
    std::mt19937 rng(7);
    for (int t = 0; t < 200; ++t) {
        uint32_t v = rng();
        uint32 w = uint32::constant(v);
        for (unsigned r : {0u, 1u, 7u, 13u, 31u, 32u}) {
            EXPECT_EQ(w.rotr(r).value(), std::rotr(v, int(r % 32)));
            EXPECT_EQ(w.shr(r).value(), v >> (r % 32));
            uint32_t from_bits = 0;
            for (unsigned i = 0; i < 32; ++i) from_bits |= uint32_t(w.rotr(r).bits_le()[i].value()) << i;
            EXPECT_EQ(from_bits, std::rotr(v, int(r % 32)));
        }
        std::vector<boolean> be;
        w.append_bits_be(be);
        EXPECT_EQ(uint32::from_bits_be(be).value(), v);
        EXPECT_EQ(be[0].value(), bool(v >> 31));
    }
}

TEST(UInt32, XorOfAllocatedAndConstantWordsCostsOnlyTheAllocatedPairs) {
    std::mt19937 rng(11);
    for (int t = 0; t < 50; ++t) {
        uint32_t a = rng(), b = rng(), c = rng();
        cs::test_cs cs;
        uint32 wa = uint32::alloc(cs, a), wc = uint32::alloc(cs, c);
        size_t before = cs.num_constraints();
        uint32 r = xor_words(cs, xor_words(cs, wa, uint32::constant(b)), wc);
        EXPECT_EQ(cs.num_constraints() - before, 32u);
        EXPECT_EQ(r.value(), a ^ b ^ c);
        uint32_t from_bits = 0;
        for (unsigned i = 0; i < 32; ++i) from_bits |= uint32_t(r.bits_le()[i].value()) << i;
        EXPECT_EQ(from_bits, a ^ b ^ c);
        EXPECT_TRUE(cs.is_satisfied());
    }
}

TEST(UInt32, AddmanyWrapsMod2To32AndPinsTheResult) {
    std::mt19937 rng(13);
    for (size_t n = 2; n <= 10; ++n) {
        cs::test_cs cs;
        std::vector<uint32> ops;
        uint32_t expected = 0;
        for (size_t i = 0; i < n; ++i) {
            uint32_t v = rng();
            expected += v;
            ops.push_back(i % 3 == 1 ? uint32::constant(v) : i % 3 == 2 ? uint32::alloc(cs, ~v).shr(0) : uint32::alloc(cs, v));
            if (i % 3 == 2) {  // a word of negated bits (value v)
                std::array<boolean, 32> neg;
                for (unsigned j = 0; j < 32; ++j) neg[j] = ops.back().bits_le()[j].negate();
                ops.back() = uint32::from_bits_le(neg);
            }
        }
        uint32 sum;
        size_t before = cs.num_constraints();
        {
            multieq meq(cs);
            sum = addmany(meq, ops);
        }
        SCOPED_TRACE(n);
        EXPECT_EQ(sum.value(), expected);
        // width result bits plus one MultiEq constraint
        EXPECT_EQ(cs.num_constraints() - before, size_t(std::bit_width(uint64_t(n) * 0xffffffffULL)) + 1);
        EXPECT_TRUE(cs.is_satisfied());
        // A wrong low result bit breaks the packed equality.
        cs.set_value(sum.bits_le()[0].var(), sum.bits_le()[0].value() ? fr_t::zero() : fr_t::one());
        EXPECT_FALSE(cs.is_satisfied());
    }
}

TEST(UInt32, AddmanyOfConstantsIsAConstant) {
    cs::counting_cs cs;
    multieq meq(cs);
    const uint32 ops[3] = {uint32::constant(0xffffffff), uint32::constant(2), uint32::constant(5)};
    uint32 r = addmany(meq, ops);
    EXPECT_TRUE(r.is_constant());
    EXPECT_EQ(r.value(), 6u);
    meq.finish();
    EXPECT_EQ(cs.num_constraints(), 0u);
}

TEST(MultiEq, PacksEqualitiesUntilTheCapacityThenStartsANewConstraint) {
    cs::test_cs cs;
    std::vector<boolean> bits;
    {
        multieq meq(cs);
        // 7 equalities of 35 bits = 245 < 254 share a constraint; the 8th (280) starts another.
        for (int k = 0; k < 8; ++k) {
            boolean b = boolean::alloc(cs, k & 1);
            meq.enforce_equal(35, b.lc(), b.lc());
            EXPECT_EQ(meq.bits_used(), k < 7 ? size_t(35 * (k + 1)) : 35u);
        }
        EXPECT_EQ(cs.num_constraints(), 8u + 1u);
    }
    EXPECT_EQ(cs.num_constraints(), 8u + 2u);
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_THROW(multieq(cs).enforce_equal(254, {}, {}), std::invalid_argument);
}

// --- multipack ----------------------------------------------------------------------------------

TEST(Multipack, InputsEqualNativePackingLittleEndianIn254BitChunks) {
    std::mt19937 rng(17);
    for (size_t n : {0u, 1u, 253u, 254u, 255u, 256u, 508u, 600u}) {
        cs::test_cs cs;
        std::vector<bool> bits(n);
        for (size_t i = 0; i < n; ++i) bits[i] = rng() & 1;
        std::vector<boolean> circuit_bits;
        for (size_t i = 0; i < n; ++i)
            circuit_bits.push_back(i % 5 == 0 ? boolean::constant(bits[i])
                                   : i % 5 == 1 ? boolean::alloc(cs, !bits[i]).negate()
                                                : boolean::alloc(cs, bits[i]));
        pack_into_inputs(cs, circuit_bits);
        auto expected = compute_multipacking(bits);
        EXPECT_EQ(expected.size(), (n + 253) / 254);
        EXPECT_TRUE(cs.is_satisfied());
        EXPECT_TRUE(cs.verify_inputs(expected));
        // Independent check of the layout: chunk j holds bits 254j.. with bit i weighted 2^i.
        for (size_t j = 0; j < expected.size(); ++j) {
            ff::limbs<4> repr{};
            for (size_t i = 0; i < 254 && 254 * j + i < n; ++i)
                if (bits[254 * j + i]) repr[i / 64] |= uint64_t(1) << (i % 64);
            EXPECT_EQ(expected[j], fr_t::from_canonical(repr));
        }
    }
}

// --- sha256 -------------------------------------------------------------------------------------

TEST(Sha256Native, CompressionWithPaddingMatchesOpenSsl) {
    std::mt19937 rng(19);
    for (size_t len : {0u, 3u, 55u, 56u, 64u, 119u, 200u}) {
        std::vector<uint8_t> msg(len);
        for (auto& b : msg) b = uint8_t(rng());
        std::vector<uint8_t> padded = msg;
        padded.push_back(0x80);
        while (padded.size() % 64 != 56) padded.push_back(0);
        for (int i = 7; i >= 0; --i) padded.push_back(uint8_t((uint64_t(len) * 8) >> (8 * i)));
        std::array<uint32_t, 8> state = SHA256_IV;
        for (size_t off = 0; off < padded.size(); off += 64) sha256_compress_native(state, padded.data() + off);
        uint8_t expected[32];
        SHA256(msg.data(), msg.size(), expected);
        auto got = sha256_state_bytes(state);
        EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), std::vector<uint8_t>(expected, expected + 32)) << len;
    }
}

TEST(Sha256Gadget, OneCompressionFromTheIvCosts25840ConstraintsBeyondItsInputBits) {
    // Boundary: bellperson's sha256_compression_function (sha256_block_no_padding) from the constant
    // IV, with the 512 input bits already allocated; their 512 booleanity constraints are excluded.
    cs::counting_cs cs;
    std::vector<boolean> bits;
    for (int i = 0; i < 512; ++i) bits.push_back(boolean::alloc(cs, false));
    ASSERT_EQ(cs.num_constraints(), 512u);
    sha256_block_no_padding(cs, bits);
    EXPECT_EQ(cs.num_constraints() - 512, SHA256_COMPRESSION_CONSTRAINTS);
    EXPECT_EQ(SHA256_COMPRESSION_CONSTRAINTS, 25840u);
    EXPECT_EQ(cs.num_inputs(), 1u);
}

TEST(Sha256Gadget, AllConstantBlockIsFreeAndGivesTheEmptyStringDigest) {
    cs::test_cs cs;
    std::vector<boolean> bits(512, boolean::constant(false));
    bits[0] = boolean::constant(true);  // the padding of the empty message
    auto out = sha256_block_no_padding(cs, bits);
    EXPECT_EQ(cs.num_constraints(), 0u);
    uint8_t expected[32];
    SHA256(nullptr, 0, expected);
    EXPECT_EQ(bits_to_bytes(out), std::vector<uint8_t>(expected, expected + 32));
}

TEST(Sha256Gadget, RandomBlocksMatchNativeCompressionAndTamperingIsCaught) {
    std::mt19937 rng(23);
    for (int t = 0; t < 3; ++t) {
        std::array<uint8_t, 64> block;
        for (auto& b : block) b = uint8_t(rng());
        cs::test_cs cs;
        std::vector<boolean> bits;
        {
            cs::namespace_scope ns(cs, "input");
            bits = alloc_bits(cs, block);
        }
        std::vector<boolean> out;
        {
            cs::namespace_scope ns(cs, "sha256");
            out = sha256_block_no_padding(cs, bits);
        }
        std::array<uint32_t, 8> state = SHA256_IV;
        sha256_compress_native(state, block.data());
        auto expected = sha256_state_bytes(state);
        EXPECT_EQ(bits_to_bytes(out), std::vector<uint8_t>(expected.begin(), expected.end()));
        ASSERT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
        EXPECT_EQ(cs.num_constraints(), 512u + 25840u);

        // Flip one internal witness bit: the system must reject it and say where.
        cs::variable victim = cs::variable::aux(uint32_t(600 + rng() % 20000));
        cs.set_value(victim, cs.value(victim).is_zero() ? fr_t::one() : fr_t::zero());
        auto where = cs.which_is_unsatisfied();
        ASSERT_TRUE(where.has_value());
        EXPECT_EQ(where->rfind("sha256/", 0), 0u) << *where;
    }
}

TEST(Sha256Gadget, FlippedMessageBitIsRejected) {
    std::array<uint8_t, 64> block{};
    cs::test_cs cs;
    auto bits = alloc_bits(cs, block);
    sha256_block_no_padding(cs, bits);
    ASSERT_TRUE(cs.is_satisfied());
    cs.set_value(bits[100].var(), fr_t::one());  // changes the message, not the digest
    EXPECT_FALSE(cs.is_satisfied());
}

TEST(Sha256Gadget, PaddedHashMatchesOpenSslOnRandomMessages) {
    std::mt19937 rng(29);
    for (size_t len : {0u, 1u, 31u, 55u, 56u, 64u, 100u}) {
        std::vector<uint8_t> msg(len);
        for (auto& b : msg) b = uint8_t(rng());
        cs::test_cs cs;
        auto out = sha256(cs, alloc_bits(cs, msg));
        uint8_t expected[32];
        SHA256(msg.data(), msg.size(), expected);
        EXPECT_EQ(bits_to_bytes(out), std::vector<uint8_t>(expected, expected + 32)) << len;
        EXPECT_TRUE(cs.is_satisfied()) << len;
    }
}

TEST(Sha256Gadget, ConstraintStructureDoesNotDependOnTheWitness) {
    // Setup and proving must see the same R1CS: synthesize twice with different data and compare
    // every row, and compare the count against counting mode (no witness).
    auto synth = [](cs::test_cs& cs, uint8_t fill) {
        std::array<uint8_t, 64> block;
        block.fill(fill);
        auto bits = alloc_bits(cs, block);
        auto state = sha256_compression(cs, bits, sha256_iv());
        sha256_compression(cs, bits, state);  // second block from an allocated state
    };
    cs::test_cs x, y;
    synth(x, 0x00);
    synth(y, 0xa5);
    ASSERT_EQ(x.num_constraints(), y.num_constraints());
    ASSERT_EQ(x.num_aux(), y.num_aux());
    for (size_t i = 0; i < x.num_constraints(); ++i) {
        auto cx = x.constraint(i), cy = y.constraint(i);
        ASSERT_EQ(cx.a.size(), cy.a.size()) << i;
        ASSERT_EQ(cx.b.size(), cy.b.size()) << i;
        ASSERT_EQ(cx.c.size(), cy.c.size()) << i;
        for (size_t k = 0; k < cx.a.size(); ++k) ASSERT_TRUE(cx.a[k].var == cy.a[k].var && cx.a[k].coeff == cy.a[k].coeff);
        for (size_t k = 0; k < cx.c.size(); ++k) ASSERT_TRUE(cx.c[k].var == cy.c[k].var && cx.c[k].coeff == cy.c[k].coeff);
    }
    cs::counting_cs counting;
    std::vector<boolean> bits;
    for (int i = 0; i < 512; ++i) bits.push_back(boolean::alloc(counting, false));
    auto state = sha256_compression(counting, bits, sha256_iv());
    sha256_compression(counting, bits, state);
    EXPECT_EQ(counting.num_constraints(), x.num_constraints());
    EXPECT_EQ(counting.num_aux(), x.num_aux());
}
