// Boolean gadgets: a bit that is a constant, an allocated variable constrained to {0, 1}, or the
// negation of one. Constants and negations cost nothing; every gadget below picks the cheapest
// constraint for the operand kinds, with the same case analysis (and so the same R1CS, variable by
// variable and constraint by constraint) as bellperson's gadgets/boolean.rs, which Filecoin's
// circuits and parameter files are built on.
//
// Costs with allocated operands: alloc 1 constraint (booleanity); xor 1; and 1; sha256_ch 1;
// sha256_maj 2 (b AND c, then the majority). Against constants: 0 for xor, and; ch and maj
// reduce to one AND or less.
#pragma once

#include <cstdint>
#include <vector>

#include "common/cs/constraint_system.hpp"

namespace cuzk::gadgets {

class boolean {
public:
    enum class kind : uint8_t { constant, is, negated };

    constexpr boolean() = default;  // constant false
    static constexpr boolean constant(bool b) { return boolean(0, false, kind::constant, b); }
    // A fresh variable with the constraint (1 - v) * v = 0.
    static boolean alloc(cs::constraint_system& cs, bool value);
    // Wraps a variable already known (constrained) to be a bit; |value| is its witness value.
    static boolean from_bit_variable(cs::variable v, bool value) {
        return boolean(v.index, v.is_input(), kind::is, value);
    }

    constexpr kind type() const { return kind_; }
    constexpr bool is_constant() const { return kind_ == kind::constant; }
    constexpr bool is_negated() const { return kind_ == kind::negated; }
    // The logical value (negation applied). Meaningful only when synthesizing with a witness.
    constexpr bool value() const { return kind_ == kind::negated ? !raw_ : raw_; }
    // The underlying variable (for allocated or negated bits only).
    constexpr cs::variable var() const {
        return input_ ? cs::variable::input(index_) : cs::variable::aux(index_);
    }
    // NOT: free, flips the view.
    constexpr boolean negate() const {
        switch (kind_) {
            case kind::constant: return constant(!raw_);
            case kind::is: return boolean(index_, input_, kind::negated, raw_);
            default: return boolean(index_, input_, kind::is, raw_);
        }
    }

    // lc += coeff * this: nothing for false, coeff*ONE for true, coeff*v, or coeff*ONE - coeff*v.
    void add_to(cs::linear_combination& lc, const ff::fr_t& coeff) const {
        switch (kind_) {
            case kind::constant:
                if (raw_) lc.add_term(cs::variable::one(), coeff);
                break;
            case kind::is: lc.add_term(var(), coeff); break;
            case kind::negated:
                lc.add_term(cs::variable::one(), coeff);
                lc.sub_term(var(), coeff);
                break;
        }
    }
    cs::linear_combination lc(const ff::fr_t& coeff = cs::FR_ONE) const {
        cs::linear_combination r;
        add_to(r, coeff);
        return r;
    }

private:
    constexpr boolean(uint32_t index, bool input, kind k, bool raw)
        : index_(index), input_(input), kind_(k), raw_(raw) {}

    uint32_t index_ = 0;
    bool input_ = false;
    kind kind_ = kind::constant;
    bool raw_ = false;  // constant value, or the witness value of the underlying variable
};
static_assert(sizeof(boolean) == 8, "a UInt32 is 32 of these: keep them packed");

// a XOR b.
boolean xor_bits(cs::constraint_system& cs, const boolean& a, const boolean& b);
// a AND b.
boolean and_bits(cs::constraint_system& cs, const boolean& a, const boolean& b);
// (a AND b) XOR ((NOT a) AND c): "choose" b or c by a.
boolean sha256_ch(cs::constraint_system& cs, const boolean& a, const boolean& b, const boolean& c);
// (a AND b) XOR (a AND c) XOR (b AND c): majority.
boolean sha256_maj(cs::constraint_system& cs, const boolean& a, const boolean& b, const boolean& c);
// Constrains a == b (one constraint 0 * 0 = difference); two unequal constants throw
// std::invalid_argument because no assignment can satisfy them.
void enforce_equal(cs::constraint_system& cs, const boolean& a, const boolean& b);

// 64 allocated bits of |value|, least significant first.
std::vector<boolean> u64_into_bits_le(cs::constraint_system& cs, uint64_t value);
// 255 allocated bits of the canonical integer of |value|, least significant first (no check that
// the bits encode a value below the modulus, as in bellperson's field_into_allocated_bits_le).
std::vector<boolean> field_into_allocated_bits_le(cs::constraint_system& cs, const ff::fr_t& value);

}  // namespace cuzk::gadgets
