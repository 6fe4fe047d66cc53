// The Poseidon gadget: neptune's published constraint counts, satisfaction and agreement with the
// native hash on random inputs, rejection of tampered witnesses, and a constraint layout that does
// not depend on the witness.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/cs/counting_cs.hpp"
#include "common/cs/test_cs.hpp"
#include "common/gadgets/poseidon_gadget.hpp"
#include "common/poseidon/constants.hpp"
#include "common/poseidon/poseidon.hpp"

namespace {

using cuzk::ff::fr_t;
namespace cs = cuzk::cs;
namespace ps = cuzk::poseidon;
using cuzk::gadgets::poseidon_hash;

struct allocated_preimage {
    std::vector<cs::variable> vars;
    std::vector<fr_t> values;
};

allocated_preimage alloc_random(cs::constraint_system& sys, std::mt19937_64& rng, size_t n, bool as_inputs = false) {
    allocated_preimage p;
    for (size_t i = 0; i < n; ++i) {
        p.values.push_back(fr_t::random(rng));
        p.vars.push_back(as_inputs ? sys.alloc_input(p.values.back()) : sys.alloc(p.values.back()));
    }
    return p;
}

// neptune src/circuit.rs test_poseidon_hash (legacy circuit, the one rust-fil-proofs uses; read in
// argumentcomputer/neptune), and for arity 2 and 11 also rust-fil-proofs
// storage-proofs-porep/src/stacked/circuit/hash.rs (test_hash2_circuit: 311,
// test_hash_single_column_circuit: 598).
TEST(PoseidonGadget, ConstraintCountsMatchNeptuneStandard) {
    const std::pair<size_t, uint64_t> cases[] = {{2, 311}, {4, 377}, {8, 505}, {11, 598},
                                                 {16, 761}, {24, 1009}, {36, 1385}};
    for (auto [arity, expected] : cases) {
        cs::counting_cs counter;
        std::vector<cs::variable> in;
        for (size_t i = 0; i < arity; ++i) in.push_back(counter.alloc(fr_t{}));
        poseidon_hash(counter, in, {});
        EXPECT_EQ(counter.num_constraints(), expected) << "arity " << arity;
        // One new private variable per constraint, on top of the preimage.
        EXPECT_EQ(counter.num_aux(), arity + expected) << "arity " << arity;
        EXPECT_EQ(cuzk::gadgets::poseidon_constraints(ps::constants_for(arity)), expected);
    }
}

TEST(PoseidonGadget, ConstraintCountsMatchNeptuneStrengthened) {
    // Same neptune test, Strength::Strengthened.
    const std::pair<size_t, uint64_t> cases[] = {{2, 367}, {4, 433}, {8, 565}, {16, 821}, {24, 1069}, {36, 1445}};
    for (auto [arity, expected] : cases) {
        EXPECT_EQ(cuzk::gadgets::poseidon_constraints(ps::constants_for(arity, ps::strength::strengthened)), expected)
            << "arity " << arity;
    }
}

TEST(PoseidonGadget, SatisfiedAndEqualToNativeHashOnRandomInputs) {
    std::mt19937_64 rng(11);
    // 2, 4, 8, 11 are Filecoin's; 1 and 3 take the generic (not unrolled) code path.
    for (size_t arity : {1u, 2u, 3u, 4u, 8u, 11u}) {
        for (int k = 0; k < 3; ++k) {
            cs::test_cs sys;
            allocated_preimage p = alloc_random(sys, rng, arity);
            auto out = poseidon_hash(sys, p.vars, p.values);
            EXPECT_TRUE(sys.is_satisfied()) << "arity " << arity << ": " << sys.which_is_unsatisfied().value_or("");
            const fr_t native = ps::hash(p.values);
            EXPECT_EQ(out.value, native) << "arity " << arity;
            EXPECT_EQ(sys.value(out.var), native) << "arity " << arity;
        }
    }
}

TEST(PoseidonGadget, PublishedVectorIsReproducedInCircuit) {
    // Preimage [0, 1] of neptune's hash_values test (see test_poseidon_native.cpp).
    cs::test_cs sys;
    const std::vector<fr_t> values = {fr_t::from_u64(0), fr_t::from_u64(1)};
    std::vector<cs::variable> vars = {sys.alloc(values[0]), sys.alloc(values[1])};
    auto out = poseidon_hash(sys, vars, values);
    EXPECT_TRUE(sys.is_satisfied());
    const fr_t::repr_t expected{0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b};
    EXPECT_EQ(out.value.to_canonical(), expected);
}

// rust-fil-proofs filecoin-hashers/src/poseidon.rs, test_hash_md_circuit: 71 ones folded with
// two arity-36 hashes, 2,770 constraints, equal to the native fold.
TEST(PoseidonGadget, MerkleDamgardArity36MatchesFilecoinHashersCircuit) {
    cs::test_cs sys;
    std::vector<cs::variable> data;
    for (int i = 0; i < 71; ++i) data.push_back(sys.alloc(fr_t::one()));
    const size_t before = sys.num_constraints();
    cs::variable acc = data[0];
    fr_t acc_value = fr_t::one();
    for (size_t at = 1; at < data.size(); at += 35) {
        std::vector<cs::variable> block = {acc};
        std::vector<fr_t> values = {acc_value};
        for (size_t i = 0; i < 35; ++i) {
            block.push_back(data[at + i]);
            values.push_back(fr_t::one());
        }
        auto out = poseidon_hash(sys, block, values);
        acc = out.var;
        acc_value = out.value;
    }
    EXPECT_EQ(sys.num_constraints() - before, 2770u);
    EXPECT_TRUE(sys.is_satisfied());
    const fr_t::repr_t expected{0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7};
    EXPECT_EQ(sys.value(acc).to_canonical(), expected);
}

TEST(PoseidonGadget, RepeatedAndPublicInputsWork) {
    std::mt19937_64 rng(12);
    cs::test_cs sys;
    allocated_preimage p = alloc_random(sys, rng, 4, /*as_inputs=*/true);
    p.vars[3] = p.vars[0];  // the same variable twice, as a column of equal labels would be
    p.values[3] = p.values[0];
    auto out = poseidon_hash(sys, p.vars, p.values);
    EXPECT_TRUE(sys.is_satisfied());
    EXPECT_EQ(out.value, ps::hash(p.values));
}

TEST(PoseidonGadget, TamperedWitnessIsRejected) {
    std::mt19937_64 rng(13);
    cs::test_cs sys;
    allocated_preimage p = alloc_random(sys, rng, 8);
    auto out = poseidon_hash(sys, p.vars, p.values);
    ASSERT_TRUE(sys.is_satisfied());

    // A different output value.
    sys.set_value(out.var, out.value + fr_t::one());
    EXPECT_FALSE(sys.is_satisfied());
    sys.set_value(out.var, out.value);

    // A changed preimage value without recomputing the hash.
    sys.set_value(p.vars[5], p.values[5] + fr_t::one());
    EXPECT_FALSE(sys.is_satisfied());
    sys.set_value(p.vars[5], p.values[5]);

    // An intermediate (a partial-round S-box input) changed.
    const cs::variable mid = cs::variable::aux(p.vars.back().index + 200);
    sys.set_value(mid, sys.value(mid) + fr_t::one());
    EXPECT_FALSE(sys.is_satisfied());
}

TEST(PoseidonGadget, ConstraintLayoutDoesNotDependOnTheWitness) {
    std::mt19937_64 rng(14);
    cs::test_cs s1, s2;
    allocated_preimage p1 = alloc_random(s1, rng, 11);
    allocated_preimage p2 = alloc_random(s2, rng, 11);
    poseidon_hash(s1, p1.vars, p1.values);
    poseidon_hash(s2, p2.vars, p2.values);
    ASSERT_EQ(s1.num_constraints(), s2.num_constraints());
    auto same = [](std::span<const cs::term> x, std::span<const cs::term> y) {
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i)
            if (!(x[i].var == y[i].var) || x[i].coeff != y[i].coeff) return false;
        return true;
    };
    for (size_t i = 0; i < s1.num_constraints(); ++i) {
        auto c1 = s1.constraint(i), c2 = s2.constraint(i);
        ASSERT_TRUE(same(c1.a, c2.a) && same(c1.b, c2.b) && same(c1.c, c2.c)) << "constraint " << i;
    }
}

TEST(PoseidonGadget, FollowsNeptuneLegacyLayout) {
    // neptune's legacy circuit starts with the S-box of preimage element 1 in the first round,
    // the pre-round constant folded in: (x1 + k) * (x1 + k) = v with k the compressed constant 1;
    // it ends allocating state element 1: lc * ONE = out.
    const ps::poseidon_constants& c = ps::constants_for(2);
    std::mt19937_64 rng(15);
    cs::test_cs sys;
    allocated_preimage p = alloc_random(sys, rng, 2);
    auto out = poseidon_hash(sys, p.vars, p.values);

    auto first = sys.constraint(0);
    ASSERT_EQ(first.a.size(), 2u);
    EXPECT_TRUE(first.a[0].var == cs::variable::one());
    EXPECT_EQ(first.a[0].coeff, c.compressed_round_constants[1]);
    EXPECT_TRUE(first.a[1].var == p.vars[0]);
    ASSERT_EQ(first.c.size(), 1u);
    EXPECT_TRUE(first.c[0].var == cs::variable::aux(p.vars.back().index + 1));

    auto last = sys.constraint(sys.num_constraints() - 1);
    ASSERT_EQ(last.b.size(), 1u);
    EXPECT_TRUE(last.b[0].var == cs::variable::one());
    EXPECT_EQ(last.a.size(), c.width);  // the MDS row over the last round's t S-box outputs
    ASSERT_EQ(last.c.size(), 1u);
    EXPECT_TRUE(last.c[0].var == out.var);
}

TEST(PoseidonGadget, CountingWithoutWitnessMatchesTestSystem) {
    std::mt19937_64 rng(16);
    cs::test_cs sys;
    allocated_preimage p = alloc_random(sys, rng, 8);
    poseidon_hash(sys, p.vars, p.values);

    cs::counting_cs counter(/*with_witness=*/true);
    allocated_preimage q = alloc_random(counter, rng, 8);
    poseidon_hash(counter, q.vars, q.values);
    EXPECT_EQ(counter.num_constraints(), sys.num_constraints());
    EXPECT_EQ(counter.num_aux(), sys.num_aux());
}

TEST(PoseidonGadget, UncachedConstantSetGivesTheSameCircuit) {
    const ps::poseidon_constants own = ps::make_constants(2);
    std::mt19937_64 rng(17);
    cs::test_cs sys;
    allocated_preimage p = alloc_random(sys, rng, 2);
    auto out = poseidon_hash(sys, p.vars, p.values, own);
    EXPECT_TRUE(sys.is_satisfied());
    EXPECT_EQ(out.value, ps::hash(p.values));
    EXPECT_EQ(sys.num_constraints(), 311u);
}

TEST(PoseidonGadget, WrongPreimageLengthIsRejected) {
    cs::test_cs sys;
    std::vector<cs::variable> vars = {sys.alloc(fr_t::one())};
    std::vector<fr_t> values = {fr_t::one()};
    EXPECT_THROW(poseidon_hash(sys, vars, values, ps::constants_for(2)), std::invalid_argument);
}

}  // namespace
