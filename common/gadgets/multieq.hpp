// MultiEq: packs several integer equalities lhs_k == rhs_k into one constraint
//   (sum_k 2^{s_k} lhs_k) * 1 = sum_k 2^{s_k} rhs_k,
// where each equality k is known to hold over the integers below 2^{n_k} and s_k = n_0 + ... +
// n_{k-1}. While the total width stays below the field capacity (254 bits for Fr) no sum can wrap
// modulo r, so the packed equation holds iff every equality does. SHA256's additions mod 2^32
// (UInt32 addmany) use it: about 7 additions share one constraint.
//
// Flushing follows bellperson's gadgets/multieq.rs exactly (an equality that would reach the
// capacity first flushes the pending ones; the destructor flushes the rest), so the constraint
// order and contents match the reference circuit.
#pragma once

#include <cstddef>
#include <exception>

#include "common/cs/constraint_system.hpp"

namespace cuzk::gadgets {

class multieq {
public:
    // Fr::CAPACITY: the largest k with 2^k - 1 < r for every k-bit value.
    static constexpr size_t CAPACITY = 254;

    explicit multieq(cs::constraint_system& cs) : cs_(cs) {}
    // Flushes pending equalities, as bellperson does on drop. Gadgets call finish() themselves so
    // that a failure surfaces as an exception; here nothing is flushed while one is unwinding.
    ~multieq() {
        if (std::uncaught_exceptions() == 0) finish();
    }
    multieq(const multieq&) = delete;
    multieq& operator=(const multieq&) = delete;

    cs::constraint_system& cs() { return cs_; }

    // lhs == rhs, both below 2^num_bits as integers.
    void enforce_equal(size_t num_bits, const cs::linear_combination& lhs, const cs::linear_combination& rhs);

    // The allocation-free form used by addmany: reserve room for a num_bits equality (flushing
    // first when it would not fit), then add the equality's terms, each scaled by 2^shift where
    // shift is the returned value, with add_lhs / add_rhs / add_lhs_constant.
    size_t begin_equality(size_t num_bits);
    void add_lhs(cs::variable v, const ff::fr_t& coeff) { lhs_.add_term(v, coeff); }
    void add_rhs(cs::variable v, const ff::fr_t& coeff) { rhs_.add_term(v, coeff); }
    // Constant parts are summed into one ONE term at flush time instead of one term per bit.
    void add_lhs_constant(const ff::fr_t& c) {
        lhs_constant_ += c;
        lhs_has_constant_ = true;
    }

    // Enforces the pending equalities now; no-op when there are none.
    void finish() {
        if (bits_used_ > 0) flush();
    }

    size_t bits_used() const { return bits_used_; }

private:
    void flush();

    cs::constraint_system& cs_;
    cs::linear_combination lhs_, rhs_;  // reused: their heap blocks survive flushes
    ff::fr_t lhs_constant_;
    bool lhs_has_constant_ = false;
    size_t bits_used_ = 0;
};

}  // namespace cuzk::gadgets
