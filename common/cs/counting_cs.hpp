// A constraint system that only counts: constraints, public inputs, private variables. It keeps no
// assignment and no matrices, so it sizes a circuit of any size in constant memory. By default it
// has no witness (gadgets skip value-only work, as during setup); constructed with
// with_witness = true it accepts values and drops them, which measures synthesis with witness
// computation but without any storage.
#pragma once

#include <cstdint>

#include "common/cs/constraint_system.hpp"

namespace cuzk::cs {

class counting_cs final : public constraint_system {
public:
    explicit counting_cs(bool with_witness = false) : with_witness_(with_witness) {}

    variable alloc(const ff::fr_t& value) override;
    variable alloc_input(const ff::fr_t& value) override;
    void enforce(const linear_combination& a, const linear_combination& b,
                 const linear_combination& c) override;
    bool has_witness() const override { return with_witness_; }

    uint64_t num_constraints() const { return constraints_; }
    // Public inputs including ONE (bellperson's num_inputs) and without it.
    uint64_t num_inputs() const { return inputs_; }
    uint64_t num_inputs_without_one() const { return inputs_ - 1; }
    uint64_t num_aux() const { return aux_; }
    // Total terms over all A, B and C rows: the size of the matrices in sparse form.
    uint64_t num_terms() const { return terms_; }

private:
    bool with_witness_;
    uint64_t constraints_ = 0;
    uint64_t inputs_ = 1;  // ONE
    uint64_t aux_ = 0;
    uint64_t terms_ = 0;
};

}  // namespace cuzk::cs
