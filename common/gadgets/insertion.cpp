#include "common/gadgets/insertion.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::gadgets {

using cs::linear_combination;

allocated_num pick(cs::constraint_system& cs, const boolean& cond, const allocated_num& a, const allocated_num& b) {
    allocated_num c = alloc_num(cs, cond.value() ? a.value : b.value);
    linear_combination lhs(b.var);
    lhs.sub_term(a.var);
    linear_combination rhs(b.var);
    rhs.sub_term(c.var);
    cs.enforce(lhs, cond.lc(), rhs);
    return c;
}

namespace {

// Output position p of the insertion table, one pick per (position, bit) in the order
// rust-fil-proofs hand-optimized them; variable and constraint order must match it exactly.
std::vector<allocated_num> insert_8(cs::constraint_system& cs, const allocated_num& x,
                                    std::span<const boolean> bits, std::span<const allocated_num> e) {
    const boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
    if (b0.type() != boolean::kind::is || b1.type() != boolean::kind::is)
        throw std::invalid_argument("insert: index bits must be allocated and not negated");
    // Siblings b..h of the reference's table; x is the inserted node.
    const allocated_num &b = e[0], &c = e[1], &d = e[2], &ee = e[3], &f = e[4], &g = e[5], &h = e[6];
    boolean nor01 = and_bits(cs, b0.negate(), b1.negate());  // (1 - b0)(1 - b1)
    boolean and01 = and_bits(cs, b0, b1);

    allocated_num p0_xx0 = pick(cs, nor01, x, b);
    allocated_num p0 = pick(cs, b2, b, p0_xx0);

    allocated_num p1_x00 = pick(cs, b0, x, b);
    allocated_num p1_xx0 = pick(cs, b1, c, p1_x00);
    allocated_num p1 = pick(cs, b2, c, p1_xx0);

    allocated_num p2_x10 = pick(cs, b0, d, x);
    allocated_num p2_xx0 = pick(cs, b1, p2_x10, c);
    allocated_num p2 = pick(cs, b2, d, p2_xx0);

    allocated_num p3_xx0 = pick(cs, and01, x, d);
    allocated_num p3 = pick(cs, b2, ee, p3_xx0);

    allocated_num p4_xx1 = pick(cs, nor01, x, f);
    allocated_num p4 = pick(cs, b2, p4_xx1, ee);

    allocated_num p5_x01 = pick(cs, b0, x, f);
    allocated_num p5_xx1 = pick(cs, b1, g, p5_x01);
    allocated_num p5 = pick(cs, b2, p5_xx1, f);

    allocated_num p6_x11 = pick(cs, b0, h, x);
    allocated_num p6_xx1 = pick(cs, b1, p6_x11, g);
    allocated_num p6 = pick(cs, b2, p6_xx1, g);

    allocated_num p7_xx1 = pick(cs, and01, x, h);
    allocated_num p7 = pick(cs, b2, p7_xx1, h);
    return {p0, p1, p2, p3, p4, p5, p6, p7};
}

std::vector<allocated_num> insert_4(cs::constraint_system& cs, const allocated_num& x,
                                    std::span<const boolean> bits, std::span<const allocated_num> e) {
    const boolean &b0 = bits[0], &b1 = bits[1];
    const allocated_num &b = e[0], &c = e[1], &d = e[2];
    allocated_num p0_x0 = pick(cs, b0, b, x);
    allocated_num p0 = pick(cs, b1, b, p0_x0);
    allocated_num p1_x0 = pick(cs, b0, x, b);
    allocated_num p1 = pick(cs, b1, c, p1_x0);
    allocated_num p2_x1 = pick(cs, b0, d, x);
    allocated_num p2 = pick(cs, b1, p2_x1, c);
    allocated_num p3_x1 = pick(cs, b0, x, d);
    allocated_num p3 = pick(cs, b1, p3_x1, d);
    return {p0, p1, p2, p3};
}

}  // namespace

allocated_num select(cs::constraint_system& cs, std::span<const allocated_num> from, std::span<const boolean> bits) {
    if (from.size() != (size_t(1) << bits.size()))
        throw std::invalid_argument("select: " + std::to_string(from.size()) + " candidates for " +
                                    std::to_string(bits.size()) + " index bits");
    std::vector<allocated_num> state(from.begin(), from.end());
    size_t half = from.size() / 2;
    // Most significant bit first: it halves the candidates.
    for (size_t i = bits.size(); i-- > 0;) {
        std::vector<allocated_num> next;
        next.reserve(half);
        for (size_t j = 0; j < half; ++j) next.push_back(pick(cs, bits[i], state[half + j], state[j]));
        state = std::move(next);
        half /= 2;
    }
    return state[0];
}

std::vector<allocated_num> insert(cs::constraint_system& cs, const allocated_num& element,
                                  std::span<const boolean> bits, std::span<const allocated_num> elements) {
    const size_t size = elements.size() + 1;
    if (size != (size_t(1) << bits.size()))
        throw std::invalid_argument("insert: " + std::to_string(elements.size()) + " siblings for " +
                                    std::to_string(bits.size()) + " index bits");
    if (size == 2) return {pick(cs, bits[0], elements[0], element), pick(cs, bits[0], element, elements[0])};
    if (size == 4) return insert_4(cs, element, bits, elements);
    if (size == 8) return insert_8(cs, element, bits, elements);
    // General case: position pos takes, for index n, the n-th candidate column of the table.
    std::vector<allocated_num> result;
    result.reserve(size);
    std::vector<allocated_num> choices(size);
    for (size_t pos = 0; pos < size; ++pos) {
        for (size_t index = 0; index < size; ++index)
            choices[index] = pos < index ? elements[pos] : pos == index ? element : elements[pos - 1];
        result.push_back(select(cs, choices, bits));
    }
    return result;
}

}  // namespace cuzk::gadgets
