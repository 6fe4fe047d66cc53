#include "common/gadgets/boolean.hpp"

#include <stdexcept>

namespace cuzk::gadgets {

using cs::FR_ONE;
using cs::linear_combination;
using cs::variable;

namespace {

inline const ff::fr_t& bit_value(bool b) {
    static const ff::fr_t zero;
    return b ? FR_ONE : zero;
}

// The allocated-bit primitives: each allocates its result and adds one constraint. Arguments are
// the underlying variables (negations already resolved by the caller) and their witness values.

// (a + a) * b = a + b - c, so c = a + b - 2ab = a XOR b for bits a, b.
boolean alloc_xor(cs::constraint_system& cs, const boolean& a, const boolean& b) {
    bool v = a.value() ^ b.value();
    variable c = cs.alloc(bit_value(v));
    linear_combination la(a.var(), FR_ONE.dbl());
    linear_combination lb(b.var());
    linear_combination lc(a.var());
    lc.add_term(b.var());
    lc.sub_term(c);
    cs.enforce(la, lb, lc);
    return boolean::from_bit_variable(c, v);
}

// a * b = c.
boolean alloc_and(cs::constraint_system& cs, const boolean& a, const boolean& b) {
    bool v = a.value() && b.value();
    variable c = cs.alloc(bit_value(v));
    cs.enforce(linear_combination(a.var()), linear_combination(b.var()), linear_combination(c));
    return boolean::from_bit_variable(c, v);
}

// a * (1 - b) = c: a AND NOT b, for allocated a, b.
boolean alloc_and_not(cs::constraint_system& cs, const boolean& a, const boolean& b) {
    bool v = a.value() && !b.value();
    variable c = cs.alloc(bit_value(v));
    linear_combination lb = linear_combination::constant(FR_ONE);
    lb.sub_term(b.var());
    cs.enforce(linear_combination(a.var()), lb, linear_combination(c));
    return boolean::from_bit_variable(c, v);
}

// (1 - a) * (1 - b) = c: NOT a AND NOT b.
boolean alloc_nor(cs::constraint_system& cs, const boolean& a, const boolean& b) {
    bool v = !a.value() && !b.value();
    variable c = cs.alloc(bit_value(v));
    linear_combination la = linear_combination::constant(FR_ONE);
    la.sub_term(a.var());
    linear_combination lb = linear_combination::constant(FR_ONE);
    lb.sub_term(b.var());
    cs.enforce(la, lb, linear_combination(c));
    return boolean::from_bit_variable(c, v);
}

bool is_const(const boolean& b, bool v) { return b.is_constant() && b.value() == v; }

}  // namespace

boolean boolean::alloc(cs::constraint_system& cs, bool value) {
    variable v = cs.alloc(bit_value(value));
    linear_combination a = linear_combination::constant(FR_ONE);
    a.sub_term(v);
    cs.enforce(a, linear_combination(v), linear_combination());
    return from_bit_variable(v, value);
}

boolean xor_bits(cs::constraint_system& cs, const boolean& a, const boolean& b) {
    if (is_const(a, false)) return b;
    if (is_const(b, false)) return a;
    if (is_const(a, true)) return b.negate();
    if (is_const(b, true)) return a.negate();
    // a XOR NOT b = NOT (a XOR b); the plain operand goes first, as in bellperson.
    if (a.type() == boolean::kind::is && b.is_negated()) return alloc_xor(cs, a, b.negate()).negate();
    if (a.is_negated() && b.type() == boolean::kind::is) return alloc_xor(cs, b, a.negate()).negate();
    // a XOR b = (NOT a) XOR (NOT b): both plain or both negated, xor the underlying variables.
    if (a.is_negated()) return alloc_xor(cs, a.negate(), b.negate());
    return alloc_xor(cs, a, b);
}

boolean and_bits(cs::constraint_system& cs, const boolean& a, const boolean& b) {
    if (is_const(a, false) || is_const(b, false)) return boolean::constant(false);
    if (is_const(a, true)) return b;
    if (is_const(b, true)) return a;
    bool an = a.is_negated(), bn = b.is_negated();
    if (!an && bn) return alloc_and_not(cs, a, b.negate());
    if (an && !bn) return alloc_and_not(cs, b, a.negate());
    if (an && bn) return alloc_nor(cs, a.negate(), b.negate());
    return alloc_and(cs, a, b);
}

boolean sha256_ch(cs::constraint_system& cs, const boolean& a, const boolean& b, const boolean& c) {
    bool v = (a.value() && b.value()) != (!a.value() && c.value());
    if (a.is_constant() && b.is_constant() && c.is_constant()) return boolean::constant(v);
    if (is_const(a, false)) return c;
    if (is_const(b, false)) return and_bits(cs, a.negate(), c);
    if (is_const(c, false)) return and_bits(cs, a, b);
    // (a AND b) XOR (NOT a) = NOT (a AND NOT b)
    if (is_const(c, true)) return and_bits(cs, a, b.negate()).negate();
    // a XOR ((NOT a) AND c) = NOT ((NOT a) AND (NOT c))
    if (is_const(b, true)) return and_bits(cs, a.negate(), c.negate()).negate();
    // General case (a may be the constant true): a * (b - c) = ch - c.
    variable ch = cs.alloc(bit_value(v));
    linear_combination la;
    b.add_to(la, FR_ONE);
    c.add_to(la, cs::FR_MINUS_ONE);
    linear_combination lc(ch);
    c.add_to(lc, cs::FR_MINUS_ONE);
    cs.enforce(la, a.lc(), lc);
    return boolean::from_bit_variable(ch, v);
}

boolean sha256_maj(cs::constraint_system& cs, const boolean& a, const boolean& b, const boolean& c) {
    bool av = a.value(), bv = b.value(), cv = c.value();
    bool v = ((av && bv) != (av && cv)) != (bv && cv);
    if (a.is_constant() && b.is_constant() && c.is_constant()) return boolean::constant(v);
    if (is_const(a, false)) return and_bits(cs, b, c);
    if (is_const(b, false)) return and_bits(cs, a, c);
    if (is_const(c, false)) return and_bits(cs, a, b);
    // With one operand true, maj is the OR of the other two: NOT ((NOT x) AND (NOT y)).
    if (is_const(c, true)) return and_bits(cs, a.negate(), b.negate()).negate();
    if (is_const(b, true)) return and_bits(cs, a.negate(), c.negate()).negate();
    if (is_const(a, true)) return and_bits(cs, b.negate(), c.negate()).negate();
    // maj = a (b + c - 2bc) + bc, as two constraints: b * c = bc, then
    // (2bc - b - c) * a = bc - maj. maj is allocated before bc, as in bellperson.
    variable maj = cs.alloc(bit_value(v));
    boolean bc = and_bits(cs, b, c);
    linear_combination la;
    bc.add_to(la, FR_ONE.dbl());
    b.add_to(la, cs::FR_MINUS_ONE);
    c.add_to(la, cs::FR_MINUS_ONE);
    linear_combination lc = bc.lc();
    lc.sub_term(maj);
    cs.enforce(la, a.lc(), lc);
    return boolean::from_bit_variable(maj, v);
}

void enforce_equal(cs::constraint_system& cs, const boolean& a, const boolean& b) {
    if (a.is_constant() && b.is_constant()) {
        if (a.value() != b.value())
            throw std::invalid_argument("enforce_equal: the constants true and false can never be equal");
        return;
    }
    const linear_combination zero;
    if (is_const(a, true) || is_const(b, true)) {
        const boolean& x = a.is_constant() ? b : a;
        linear_combination lc = linear_combination::constant(FR_ONE);
        x.add_to(lc, cs::FR_MINUS_ONE);
        cs.enforce(zero, zero, lc);
        return;
    }
    if (a.is_constant() || b.is_constant()) {
        const boolean& x = a.is_constant() ? b : a;
        cs.enforce(zero, zero, x.lc());
        return;
    }
    linear_combination lc = a.lc();
    b.add_to(lc, cs::FR_MINUS_ONE);
    cs.enforce(zero, zero, lc);
}

std::vector<boolean> u64_into_bits_le(cs::constraint_system& cs, uint64_t value) {
    std::vector<boolean> bits;
    bits.reserve(64);
    for (unsigned i = 0; i < 64; ++i) bits.push_back(boolean::alloc(cs, (value >> i) & 1));
    return bits;
}

std::vector<boolean> field_into_allocated_bits_le(cs::constraint_system& cs, const ff::fr_t& value) {
    auto repr = value.to_canonical();
    std::vector<boolean> bits;
    bits.reserve(ff::fr_t::BITS);
    for (size_t i = 0; i < ff::fr_t::BITS; ++i) bits.push_back(boolean::alloc(cs, (repr[i / 64] >> (i % 64)) & 1));
    return bits;
}

}  // namespace cuzk::gadgets
