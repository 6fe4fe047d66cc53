#include "common/gadgets/multieq.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::gadgets {

size_t multieq::begin_equality(size_t num_bits) {
    if (num_bits >= CAPACITY)
        throw std::invalid_argument("multieq: an equality of " + std::to_string(num_bits) +
                                    " bits does not fit the field capacity");
    if (bits_used_ + num_bits >= CAPACITY) flush();
    size_t shift = bits_used_;
    bits_used_ += num_bits;
    return shift;
}

void multieq::enforce_equal(size_t num_bits, const cs::linear_combination& lhs,
                            const cs::linear_combination& rhs) {
    size_t shift = begin_equality(num_bits);
    const ff::fr_t& k = cs::fr_pow2(unsigned(shift));
    lhs_.add_scaled(lhs, k);
    rhs_.add_scaled(rhs, k);
}

void multieq::flush() {
    if (lhs_has_constant_) lhs_.add_term(cs::variable::one(), lhs_constant_);
    cs_.enforce(lhs_, cs::linear_combination(cs::variable::one()), rhs_);
    lhs_.clear();
    rhs_.clear();
    lhs_constant_ = ff::fr_t();
    lhs_has_constant_ = false;
    bits_used_ = 0;
}

}  // namespace cuzk::gadgets
