// The counting mode of the recorder: a constraint system without a witness that counts rows, variables,
// the terms of each matrix and the distinct coefficients, storing no term. It sizes the matrices of a
// 32 GiB PoRep partition (about 130 M rows) in constant memory: `cuzk circuit-info` reports it, and
// record_matrices counts first so that it reserves exactly what it then records.
#pragma once

#include "common/cs/constraint_system.hpp"
#include "common/r1cs/coefficient_table.hpp"
#include "common/r1cs/matrix_sizes.hpp"

namespace cuzk::r1cs {

class matrix_counter final : public cs::constraint_system {
public:
    cs::variable alloc(const ff::fr_t& value) override;
    cs::variable alloc_input(const ff::fr_t& value) override;
    void enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                 const cs::linear_combination& c) override;
    bool has_witness() const override { return false; }

    matrix_sizes sizes() const;

private:
    void count_coefficients(const cs::linear_combination& lc);

    matrix_sizes sizes_{.num_inputs = 1};  // ONE
    coefficient_table coefficients_;
};

}  // namespace cuzk::r1cs
