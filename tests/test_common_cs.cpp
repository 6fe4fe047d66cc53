// Constraint-system API: linear combinations, counting_cs, test_cs (satisfaction and labels).
#include <gtest/gtest.h>

#include "common/cs/counting_cs.hpp"
#include "common/cs/linear_combination.hpp"
#include "common/cs/test_cs.hpp"

using namespace cuzk;
using cs::linear_combination;
using cs::variable;
using ff::fr_t;

TEST(Coefficients, MinusOneAndPowersOfTwo) {
    EXPECT_EQ(cs::FR_MINUS_ONE, -fr_t::one());
    EXPECT_EQ(cs::FR_MINUS_ONE + cs::FR_ONE, fr_t::zero());
    EXPECT_EQ(cs::fr_pow2(0), fr_t::one());
    EXPECT_EQ(cs::fr_pow2(64), fr_t::from_canonical({0, 1, 0, 0}));
    EXPECT_EQ(cs::fr_pow2(253), fr_t::from_canonical({0, 0, 0, uint64_t(1) << 61}));
}

TEST(Variable, InputsAndAuxAreDistinctKinds) {
    EXPECT_TRUE(variable::one().is_input());
    EXPECT_TRUE(variable::one().is_one());
    EXPECT_NE(variable::input(3), variable::aux(3));
    EXPECT_EQ(cs::constraint_system::one(), variable::input(0));
}

TEST(LinearCombination, EvaluatesTermsAsAddedIncludingDuplicates) {
    std::vector<fr_t> in = {fr_t::one(), fr_t::from_u64(5)};
    std::vector<fr_t> aux = {fr_t::from_u64(7), fr_t::zero(), fr_t::from_u64(11)};
    linear_combination lc = linear_combination(variable::aux(0)) + variable::aux(0) - variable::input(1);
    lc.add_term(variable::aux(2), fr_t::from_u64(3));
    lc.add_constant(fr_t::from_u64(100));
    lc.add_term(variable::aux(1), fr_t::from_u64(9));  // zero value, still a term
    EXPECT_EQ(lc.size(), 6u);
    EXPECT_EQ(lc.evaluate(in, aux), fr_t::from_u64(7 + 7 - 5 + 33 + 100));
    // Terms stay as written: duplicates and zero-valued variables are kept (density semantics).
    EXPECT_EQ(lc[0].var, variable::aux(0));
    EXPECT_EQ(lc[1].var, variable::aux(0));
    EXPECT_EQ(lc[5].var, variable::aux(1));
}

TEST(LinearCombination, SpillsToHeapAndCopiesMovesIntact) {
    linear_combination lc;
    for (uint32_t i = 0; i < 100; ++i) lc.add_term(variable::aux(i), fr_t::from_u64(i + 1));
    ASSERT_EQ(lc.size(), 100u);
    linear_combination copy = lc;
    linear_combination moved = std::move(lc);
    EXPECT_TRUE(lc.empty());
    ASSERT_EQ(copy.size(), 100u);
    ASSERT_EQ(moved.size(), 100u);
    for (uint32_t i = 0; i < 100; ++i) {
        EXPECT_EQ(copy[i].var, variable::aux(i));
        EXPECT_EQ(moved[i].coeff, fr_t::from_u64(i + 1));
    }
    // Small combinations move by copying their inline terms.
    linear_combination small(variable::aux(7), fr_t::from_u64(2));
    linear_combination small_moved = std::move(small);
    ASSERT_EQ(small_moved.size(), 1u);
    EXPECT_EQ(small_moved[0].coeff, fr_t::from_u64(2));
    copy = small_moved;
    EXPECT_EQ(copy.size(), 1u);
    copy.clear();
    EXPECT_TRUE(copy.empty());
}

TEST(LinearCombination, ScalingAndNegationApplyToEveryTerm) {
    std::vector<fr_t> in = {fr_t::one()};
    std::vector<fr_t> aux = {fr_t::from_u64(2), fr_t::from_u64(3)};
    linear_combination a = linear_combination(variable::aux(0)) + variable::aux(1);  // 5
    linear_combination b = fr_t::from_u64(4) * a;                                    // 20
    EXPECT_EQ(b.evaluate(in, aux), fr_t::from_u64(20));
    linear_combination c = b - a;  // 15
    EXPECT_EQ(c.evaluate(in, aux), fr_t::from_u64(15));
    linear_combination d;
    d.add_scaled(a, fr_t::from_u64(10));  // 50
    EXPECT_EQ(d.evaluate(in, aux), fr_t::from_u64(50));
    EXPECT_EQ(linear_combination::constant(fr_t::from_u64(9)).evaluate(in, aux), fr_t::from_u64(9));
}

TEST(CountingCs, CountsConstraintsInputsWithAndWithoutOneAndAux) {
    cs::counting_cs cs;
    EXPECT_FALSE(cs.has_witness());
    variable x = cs.alloc(fr_t::one());
    variable y = cs.alloc(fr_t::one());
    variable out = cs.alloc_input(fr_t::one());
    EXPECT_EQ(x, variable::aux(0));
    EXPECT_EQ(y, variable::aux(1));
    EXPECT_EQ(out, variable::input(1));
    cs.enforce(x, y, out);
    cs.enforce(linear_combination(x) + y, variable::one(), linear_combination());
    EXPECT_EQ(cs.num_constraints(), 2u);
    EXPECT_EQ(cs.num_inputs(), 2u);
    EXPECT_EQ(cs.num_inputs_without_one(), 1u);
    EXPECT_EQ(cs.num_aux(), 2u);
    EXPECT_EQ(cs.num_terms(), 6u);
    EXPECT_TRUE(cs::counting_cs(true).has_witness());
}

TEST(TestCs, SatisfiedSystemAndTamperedValueNamesTheConstraintPath) {
    cs::test_cs cs;
    variable x = cs.alloc(fr_t::from_u64(3));
    variable y = cs.alloc(fr_t::from_u64(4));
    variable z = cs.alloc_input(fr_t::from_u64(12));
    {
        cs::namespace_scope outer(cs, "outer");
        cs.enforce(x, y, z);  // outer/constraint 0
        cs::namespace_scope inner(cs, "round", 5);
        cs.enforce(linear_combination(x) + y, variable::one(), linear_combination::constant(fr_t::from_u64(7)));
    }
    EXPECT_EQ(cs.current_path(), "");
    EXPECT_TRUE(cs.is_satisfied());
    EXPECT_FALSE(cs.which_is_unsatisfied().has_value());
    EXPECT_EQ(cs.num_constraints(), 2u);
    EXPECT_EQ(cs.num_inputs(), 2u);
    EXPECT_EQ(cs.num_aux(), 2u);
    EXPECT_TRUE(cs.verify_inputs(std::vector<fr_t>{fr_t::from_u64(12)}));
    EXPECT_FALSE(cs.verify_inputs(std::vector<fr_t>{fr_t::from_u64(13)}));

    cs.set_value(z, fr_t::from_u64(13));
    EXPECT_FALSE(cs.is_satisfied());
    EXPECT_EQ(cs.which_is_unsatisfied(), "outer/constraint 0");
    cs.set_value(z, fr_t::from_u64(12));
    cs.set_value(y, fr_t::from_u64(5));  // breaks both; the first is reported
    EXPECT_EQ(cs.first_unsatisfied(), 0u);
    cs.set_value(x, fr_t::from_u64(2));  // 2 * 5 = 10 != 12, and 2 + 5 = 7 holds
    EXPECT_EQ(cs.which_is_unsatisfied(), "outer/constraint 0");
    EXPECT_TRUE(cs.is_satisfied(1));
    EXPECT_EQ(cs.constraint_label(1), "outer/round 5/constraint 0");
}

TEST(TestCs, LabelsVariablesAndRejectsUnallocatedOnes) {
    cs::test_cs cs;
    variable a;
    {
        cs::namespace_scope ns(cs, "gadget");
        a = cs.alloc(fr_t::one());
    }
    EXPECT_EQ(cs.variable_label(a), "gadget/aux 0");
    EXPECT_EQ(cs.variable_label(variable::one()), "input 0");
    EXPECT_THROW(cs.enforce(variable::aux(5), a, a), std::out_of_range);
    EXPECT_THROW(cs.set_value(variable::one(), fr_t::zero()), std::invalid_argument);
    EXPECT_THROW(cs.pop_namespace(), std::logic_error);
}

TEST(TestCs, ConstraintViewReturnsTheStoredRows) {
    cs::test_cs cs;
    variable x = cs.alloc(fr_t::from_u64(2));
    cs.enforce(linear_combination(x) + variable::one(), x, linear_combination(x, fr_t::from_u64(3)));
    auto c = cs.constraint(0);
    ASSERT_EQ(c.a.size(), 2u);
    ASSERT_EQ(c.b.size(), 1u);
    ASSERT_EQ(c.c.size(), 1u);
    EXPECT_EQ(c.a[1].var, variable::one());
    EXPECT_EQ(c.c[0].coeff, fr_t::from_u64(3));
    EXPECT_TRUE(cs.is_satisfied());  // (2 + 1) * 2 = 3 * 2
}
