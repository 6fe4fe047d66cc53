// The setup's constraint system (bellperson's KeypairAssembly), without the witness: for every
// variable it accumulates its columns of the A, B and C matrices evaluated at tau,
//   u_j(tau) = sum_rows A[row][j] L_row(tau)   (v_j with B, w_j with C),
// where L_row is the Lagrange basis polynomial of the row's domain point. Accumulating the
// evaluations instead of storing the terms keeps a 2^27-row setup within memory; it needs the
// domain size, hence the Lagrange coefficients, before synthesis: setup counts the rows first with
// counting_cs (synthesis is deterministic, so both passes agree).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "common/cs/constraint_system.hpp"

namespace cuzk::groth16 {

// Per-variable evaluations of the QAP polynomials at tau.
struct qap_columns {
    std::vector<ff::fr_t> at, bt, ct;
    size_t size() const { return at.size(); }
};

class keypair_assembly final : public cs::constraint_system {
public:
    // |lagrange|[row] = L_row(tau); it must cover the circuit's rows plus one per input. Borrowed:
    // it must outlive the assembly. Input 0 (ONE) exists from the start.
    explicit keypair_assembly(std::span<const ff::fr_t> lagrange);

    cs::variable alloc(const ff::fr_t& value) override;
    cs::variable alloc_input(const ff::fr_t& value) override;
    // Throws std::length_error when the rows outgrow the Lagrange coefficients.
    void enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                 const cs::linear_combination& c) override;
    bool has_witness() const override { return false; }

    // bellperson's input rows input_i * 0 = 0 (u_i(tau) += L_{n+i}(tau)); call once after synthesis.
    void finish();

    size_t num_constraints() const { return rows_; }  // rows so far (all of them after finish())
    size_t num_inputs() const { return inputs_.size(); }
    size_t num_aux() const { return aux_.size(); }
    const qap_columns& inputs() const { return inputs_; }
    const qap_columns& aux() const { return aux_; }

private:
    void add_row(const cs::linear_combination& lc, std::vector<ff::fr_t> qap_columns::*col, const ff::fr_t& l);

    std::span<const ff::fr_t> lagrange_;
    qap_columns inputs_, aux_;
    size_t rows_ = 0;
    bool finished_ = false;
};

}  // namespace cuzk::groth16
