// The prover's constraint system (bellperson's ProvingAssignment): for every constraint it keeps
// the evaluations <a,w>, <b,w>, <c,w> against the witness, plus the input and aux assignments and
// the density bitmaps that say which parameter points the A and B multi-exponentiations use:
//   a_aux_density   aux j appears in some A row   (inputs are always in A: see finish())
//   b_input_density input i appears in some B row
//   b_aux_density   aux j appears in some B row
// A variable counts as present as soon as a term names it, whatever its coefficient, because
// that is how bellperson builds its densities (and the setup's identity filtering mirrors it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/cs/constraint_system.hpp"

namespace cuzk::groth16 {

// A growable bitmap; bit i set when variable i is present in the query.
class density_bitmap {
public:
    void push_back(bool v) {
        if (size_ % 64 == 0) words_.push_back(0);
        if (v) words_.back() |= uint64_t(1) << (size_ % 64);
        ++size_;
    }
    void set(size_t i) { words_[i / 64] |= uint64_t(1) << (i % 64); }
    bool test(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
    size_t size() const { return size_; }
    // Number of set bits: how many parameter points this query consumes.
    size_t count() const;
    const std::vector<uint64_t>& words() const { return words_; }

private:
    std::vector<uint64_t> words_;
    size_t size_ = 0;
};

class proving_assignment final : public cs::constraint_system {
public:
    // Starts with input 0 = ONE, as every constraint system does.
    proving_assignment();

    cs::variable alloc(const ff::fr_t& value) override;
    cs::variable alloc_input(const ff::fr_t& value) override;
    void enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                 const cs::linear_combination& c) override;
    bool has_witness() const override { return true; }

    // Adds bellperson's rows input_i * 0 = 0 for every input (ONE included), which put every input
    // into the A query so that IC is fully dense. Call once, after synthesis; further enforce or
    // alloc calls are then refused (std::logic_error).
    void finish();
    bool finished() const { return finished_; }

    // Rows of the circuit proper, without the input rows finish() adds.
    size_t num_circuit_constraints() const { return circuit_rows_; }
    // All rows (after finish(): circuit rows + inputs); the NTT domain must hold this many.
    size_t num_constraints() const { return a_.size(); }
    size_t num_inputs() const { return inputs_.size(); }  // with ONE
    size_t num_aux() const { return aux_.size(); }

    const std::vector<ff::fr_t>& a() const { return a_; }
    const std::vector<ff::fr_t>& b() const { return b_; }
    const std::vector<ff::fr_t>& c() const { return c_; }
    std::vector<ff::fr_t>& a() { return a_; }
    std::vector<ff::fr_t>& b() { return b_; }
    std::vector<ff::fr_t>& c() { return c_; }
    const std::vector<ff::fr_t>& inputs() const { return inputs_; }  // inputs()[0] == 1
    const std::vector<ff::fr_t>& aux() const { return aux_; }
    const density_bitmap& a_aux_density() const { return a_aux_density_; }
    const density_bitmap& b_input_density() const { return b_input_density_; }
    const density_bitmap& b_aux_density() const { return b_aux_density_; }

    // Frees the row evaluations once H is computed (the MSMs need only the assignments).
    void release_rows();

private:
    void check_open() const;

    std::vector<ff::fr_t> a_, b_, c_;
    std::vector<ff::fr_t> inputs_, aux_;
    density_bitmap a_aux_density_, b_input_density_, b_aux_density_;
    size_t circuit_rows_ = 0;
    bool finished_ = false;
};

}  // namespace cuzk::groth16
