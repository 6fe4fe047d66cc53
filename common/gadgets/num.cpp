#include "common/gadgets/num.hpp"

#include <algorithm>

#include "common/gadgets/multipack.hpp"

namespace cuzk::gadgets {

using cs::linear_combination;

allocated_num alloc_num(cs::constraint_system& cs, const ff::fr_t& value) {
    return allocated_num{cs.alloc(value), cs.has_witness() ? value : ff::fr_t()};
}

void inputize(cs::constraint_system& cs, const allocated_num& num) {
    cs::variable input = cs.alloc_input(num.value);
    cs.enforce(linear_combination(input), linear_combination(cs::variable::one()), linear_combination(num.var));
}

std::vector<boolean> num_to_bits_le(cs::constraint_system& cs, const allocated_num& num) {
    std::vector<boolean> bits = field_into_allocated_bits_le(cs, num.value);
    linear_combination sum;
    sum.reserve(bits.size() + 1);
    for (size_t i = 0; i < bits.size(); ++i) sum.add_term(bits[i].var(), cs::fr_pow2(unsigned(i)));
    sum.sub_term(num.var);
    cs.enforce(linear_combination(), linear_combination(), sum);
    return bits;
}

void enforce_equal(cs::constraint_system& cs, const allocated_num& a, const allocated_num& b) {
    cs.enforce(linear_combination(a.var), linear_combination(cs::variable::one()), linear_combination(b.var));
}

allocated_num add_nums(cs::constraint_system& cs, const allocated_num& a, const allocated_num& b) {
    allocated_num sum = alloc_num(cs, a.value + b.value);
    linear_combination lhs(a.var);
    lhs.add_term(b.var);
    cs.enforce(lhs, linear_combination(cs::variable::one()), linear_combination(sum.var));
    return sum;
}

allocated_num pack_bits(cs::constraint_system& cs, std::span<const boolean> bits) {
    size_t n = std::min(bits.size(), MULTIPACK_CHUNK_BITS);
    linear_combination lc;
    lc.reserve(n);
    ff::fr_t value;
    for (size_t i = 0; i < n; ++i) {
        bits[i].add_to(lc, cs::fr_pow2(unsigned(i)));
        if (bits[i].value()) value += cs::fr_pow2(unsigned(i));
    }
    allocated_num out = alloc_num(cs, value);
    cs.enforce(lc, linear_combination(cs::variable::one()), linear_combination(out.var));
    return out;
}

std::vector<boolean> reverse_bit_numbering(std::span<const boolean> bits) {
    std::vector<boolean> out((bits.size() + 7) / 8 * 8, boolean::constant(false));
    for (size_t i = 0; i < bits.size(); ++i) out[i / 8 * 8 + 7 - i % 8] = bits[i];
    return out;
}

}  // namespace cuzk::gadgets
