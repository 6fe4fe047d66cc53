// The constraint system of a prover that holds the circuit's R1CS matrices (r1cs/r1cs_matrices.hpp): synthesis
// keeps only the witness, the public inputs in full (input 0 is ONE, as in groth16::proving_assignment) and the
// aux values compactly (compact_vector_builder), numbered as proving_assignment numbers them. enforce() evaluates
// nothing and only counts rows: a = A.z, b = B.z, c = C.z are computed later from the matrices. Per call it costs
// a counter increment (enforce) or a compact append (alloc); clear() keeps the memory, so a thread that
// synthesizes partition after partition allocates only while a partition outgrows the one before.
//
// At the 32 GiB PoRep shape (130 M aux values, 1.3 % not 0 or 1) it holds ~95 MB where proving_assignment holds
// 16.7 GB (the a, b, c rows and the aux values, 32 bytes each).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/cs/constraint_system.hpp"
#include "common/witness/compact_vector_builder.hpp"

namespace cuzk::witness {

class witness_assignment final : public cs::constraint_system {
public:
    // Starts with input 0 = ONE.
    witness_assignment();

    cs::variable alloc(const ff::fr_t& value) override;
    cs::variable alloc_input(const ff::fr_t& value) override;
    void enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                 const cs::linear_combination& c) override;
    bool has_witness() const override { return true; }

    // Appends |part|'s inputs (but its ONE), aux values and rows, as if the synthesis that filled |part| had
    // continued in this one: for circuits whose pieces allocate and constrain only their own variables (the
    // sector slots of a fallback PoSt), the pieces are synthesized apart, in parallel, and joined in order.
    void append(const witness_assignment& part);
    // Room for |inputs| more inputs and |aux| more aux values of which |full_aux| are not 0 or 1, so that appends of
    // known sizes grow no array (no copy of a multi-GB vector on the way).
    void reserve_more(std::uint64_t inputs, std::uint64_t aux, std::uint64_t full_aux);
    std::uint64_t num_full_aux() const { return aux_.full_count(); }

    // Back to the state of a new one (ONE only, no rows), keeping the memory of the arrays.
    void clear();

    // Rows enforced: the circuit rows (proving_assignment's num_circuit_constraints()).
    std::uint64_t num_circuit_constraints() const { return rows_; }
    // Rows the prover's domain holds: the circuit rows, then bellperson's one per input (ONE included).
    std::uint64_t prover_rows() const { return rows_ + inputs_.size(); }
    std::uint64_t num_inputs() const { return inputs_.size(); }  // with ONE
    std::uint64_t num_aux() const { return aux_.size(); }

    std::span<const ff::fr_t> inputs() const { return inputs_; }  // inputs()[0] == ONE
    // Valid until the next alloc or clear.
    compact_vector_view aux() const { return aux_.view(); }

private:
    std::vector<ff::fr_t> inputs_;
    compact_vector_builder aux_;
    std::uint64_t rows_ = 0;
};

}  // namespace cuzk::witness
