// Built-in circuits: spec parsing, sizes, satisfaction, and public inputs equal to the natively
// computed values (SHA256 digest packed with multipack).
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "common/circuits/mul_chain.hpp"
#include "common/circuits/registry.hpp"
#include "common/circuits/sha256_chain.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/cs/test_cs.hpp"
#include "common/gadgets/sha256.hpp"
#include "common/util/errors.hpp"

using namespace cuzk;
using ff::fr_t;

namespace {
cs::counting_cs count(const circuits::circuit& c) {
    cs::counting_cs cs;
    c.synthesize(cs);
    return cs;
}
}  // namespace

TEST(Registry, BuildsCircuitsFromSpecsAndKeepsTheirCanonicalNames) {
    EXPECT_EQ(circuits::make_circuit("sha256:4")->name(), "sha256:4");
    EXPECT_EQ(circuits::make_circuit("sha256:4@abc")->name(), "sha256:4@abc");
    EXPECT_EQ(circuits::make_circuit("mul:10")->name(), "mul:10");
    EXPECT_EQ(circuits::make_circuit("mul:3@x")->name(), "mul:3@x");
    EXPECT_EQ(circuits::make_circuit("porep:StackedDrg2KiBV1_1@s")->name(), "porep:StackedDrg2KiBV1_1@s");
    EXPECT_EQ(circuits::make_circuit("porep:StackedDrg32GiBV1_1")->name(), "porep:StackedDrg32GiBV1_1");
    EXPECT_EQ(circuits::make_circuit("post:StackedDrgWinning2KiBV1@s")->name(), "post:StackedDrgWinning2KiBV1@s");
    EXPECT_EQ(circuits::make_circuit("post:StackedDrgWindow32GiBV1_1")->name(), "post:StackedDrgWindow32GiBV1_1");
    EXPECT_EQ(circuits::list_circuits().size(), 5u);
}

TEST(Registry, RejectsBadSpecsNamingThem) {
    for (const char* bad : {"", "sha256", "sha256:", "sha256:0", "sha256:-1", "sha256:4x", "sha256:4@", "mul:0",
                            "blake2s:3", "sha256:99999999999999999999", "sha256:1025"}) {
        try {
            circuits::make_circuit(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("'" + std::string(bad) + "'"), std::string::npos) << e.what();
        }
    }
}

// Seen with the API request fuzz target (tests/fuzz/fuzz_api_request.cpp): a test job naming
// "porep:StackedDrg8MiBV1_1" had its check build the circuit, sealing an 8 MiB sector (minutes under the sanitizer)
// on the thread answering the request. The check refuses what make_circuit refuses and builds nothing.
TEST(Registry, ChecksSpecsWithoutBuildingThem) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) {
        circuits::check_circuit_spec("porep:StackedDrg8MiBV1_1@" + std::to_string(i));
        circuits::check_circuit_spec("post:StackedDrgWindow8MiBV1_1@" + std::to_string(i));
    }
    // A single sealing of the 8 MiB sector takes seconds.
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    circuits::check_circuit_spec("mul:64");
    circuits::check_circuit_spec("sha256:4@abc");
    for (const char* bad : {"", "sha256", "sha256:0", "mul:5@", "blake2s:3"})
        EXPECT_THROW(circuits::check_circuit_spec(bad), std::invalid_argument) << bad;
    EXPECT_THROW(circuits::check_circuit_spec("porep:StackedDrg3KiBV1"), input_error);
    EXPECT_THROW(circuits::check_circuit_spec("post:StackedDrgWindow3KiBV1"), input_error);
}

TEST(MulChain, HasNConstraintsOnePublicInputAndIsSatisfied) {
    for (size_t n : {1u, 2u, 17u}) {
        auto c = circuits::make_circuit("mul:" + std::to_string(n));
        auto counts = count(*c);
        EXPECT_EQ(counts.num_constraints(), n);
        EXPECT_EQ(counts.num_inputs(), 2u);
        EXPECT_EQ(counts.num_inputs_without_one(), 1u);
        EXPECT_EQ(counts.num_aux(), n + 1);
        cs::test_cs cs;
        c->synthesize(cs);
        EXPECT_TRUE(cs.is_satisfied());
        EXPECT_TRUE(cs.verify_inputs(c->public_inputs()));
    }
    // Different seeds, different witnesses and outputs.
    EXPECT_NE(circuits::make_circuit("mul:5@a")->public_inputs(), circuits::make_circuit("mul:5@b")->public_inputs());
}

TEST(Sha256Chain, OneBlockCostsInputBitsPlusOneCompressionPlusPacking) {
    auto counts = count(*circuits::make_circuit("sha256:1"));
    EXPECT_EQ(counts.num_constraints(), 512u + gadgets::SHA256_COMPRESSION_CONSTRAINTS + 2u);
    EXPECT_EQ(counts.num_inputs(), 3u);  // ONE and the digest in two field elements
}

TEST(Sha256Chain, LaterBlocksCostTheChainedCompressionFigure) {
    auto one = count(*circuits::make_circuit("sha256:1")).num_constraints();
    auto two = count(*circuits::make_circuit("sha256:2")).num_constraints();
    auto five = count(*circuits::make_circuit("sha256:5")).num_constraints();
    EXPECT_EQ(two - one, 512u + circuits::sha256_chain::CHAINED_COMPRESSION_CONSTRAINTS);
    EXPECT_EQ(five - two, 3 * (two - one));
    EXPECT_EQ(five, circuits::sha256_chain::constraints_for(5));
}

TEST(Sha256Chain, PublicInputsAreTheNativeDigestPacked) {
    for (const char* spec : {"sha256:1", "sha256:3@seed"}) {
        auto c = circuits::make_circuit(spec);
        cs::test_cs cs;
        c->synthesize(cs);
        ASSERT_TRUE(cs.is_satisfied()) << *cs.which_is_unsatisfied();
        auto expected = c->public_inputs();
        ASSERT_EQ(expected.size(), 2u);
        EXPECT_TRUE(cs.verify_inputs(expected)) << spec;

        // Independently: chain the native compression and pack the digest bits (each byte most
        // significant bit first) 254 to the first element, 2 to the second, bit i weighted 2^i.
        auto* chain = dynamic_cast<circuits::sha256_chain*>(c.get());
        ASSERT_NE(chain, nullptr);
        std::array<uint32_t, 8> state = gadgets::SHA256_IV;
        for (size_t k = 0; k < chain->blocks(); ++k) gadgets::sha256_compress_native(state, chain->block(k).data());
        auto digest = gadgets::sha256_state_bytes(state);
        ff::limbs<4> lo{}, hi{};
        for (size_t i = 0; i < 256; ++i) {
            bool bit = (digest[i / 8] >> (7 - i % 8)) & 1;
            if (!bit) continue;
            if (i < 254)
                lo[i / 64] |= uint64_t(1) << (i % 64);
            else
                hi[0] |= uint64_t(1) << (i - 254);
        }
        EXPECT_EQ(expected[0], fr_t::from_canonical(lo));
        EXPECT_EQ(expected[1], fr_t::from_canonical(hi));
    }
}

TEST(Sha256Chain, SeedsGiveDifferentBlocksAndDigestsDeterministically) {
    circuits::sha256_chain a(2), b(2, "other"), a2(2);
    EXPECT_NE(a.block(0), b.block(0));
    EXPECT_NE(a.block(0), a.block(1));
    EXPECT_EQ(a.block(1), a2.block(1));
    EXPECT_NE(a.native_digest(), b.native_digest());
    EXPECT_EQ(a.public_inputs(), a2.public_inputs());
}

TEST(Sha256Chain, TamperedWitnessIsRejected) {
    auto c = circuits::make_circuit("sha256:2");
    cs::test_cs cs;
    c->synthesize(cs);
    ASSERT_TRUE(cs.is_satisfied());
    cs::variable digest_input = cs::variable::input(1);
    cs.set_value(digest_input, cs.value(digest_input) + fr_t::one());
    auto where = cs.which_is_unsatisfied();
    ASSERT_TRUE(where.has_value());
    EXPECT_EQ(where->rfind("digest/packing 0/", 0), 0u) << *where;
}
