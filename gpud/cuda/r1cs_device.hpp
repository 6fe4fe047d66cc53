// A circuit's R1CS matrices (common/r1cs/r1cs_matrices.hpp) resident in device memory, uploaded once per
// parameters set and freed with the object, for r1cs_witness to evaluate a, b, c and gather the A and B
// scalars of every partition of that circuit.
//
// Device layout, per matrix: row_start as 32-bit offsets (a matrix of 2^32 terms or more is refused), column
// (4 bytes) and coefficient index (2 bytes) per term, the long rows' pieces (r1cs_plan.hpp); the coefficient
// table; the three density bitmaps with their prefix counts per 64-bit word. About 6 bytes per term and
// 4 per row and matrix: at the 32 GiB PoRep shape, ~1-2 G terms and 130 M rows, 8-14 GB.
//
// The upload checks what the kernels rely on, so that a bad matrix file fails here rather than reading out of
// bounds on the device: row offsets from 0, not decreasing, ending at the term count; every column inside z
// and every coefficient index inside the table (checked on the device after the copy); coefficients 0 and 1
// are 1 and -1; the densities of the right sizes with no bit beyond them. std::invalid_argument names what
// is wrong; CUDA failures throw cuda_error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/r1cs/r1cs_matrices.hpp"

namespace cuzk::cuda {

class r1cs_device {
public:
    r1cs_device(const r1cs::r1cs_matrices& m, int device = 0);
    ~r1cs_device();
    r1cs_device(const r1cs_device&) = delete;
    r1cs_device& operator=(const r1cs_device&) = delete;

    int device() const;
    std::uint64_t circuit_rows() const;
    std::uint64_t num_inputs() const;  // ONE included
    std::uint64_t num_aux() const;
    std::uint64_t prover_rows() const { return circuit_rows() + num_inputs(); }
    std::uint64_t z_size() const { return num_inputs() + num_aux(); }
    std::uint64_t non_zeros() const;   // terms of A, B and C together
    std::uint64_t long_rows() const;   // rows of more than r1cs_plan::SHORT_ROW_TERMS terms, in A, B and C
    std::uint64_t long_row_terms() const;
    // Set bits of the densities: the A query's aux variables, the B query's inputs and aux variables.
    std::uint64_t a_aux_count() const;
    std::uint64_t b_input_count() const;
    std::uint64_t b_aux_count() const;
    // Device memory the matrices hold.
    std::size_t device_bytes() const;

    struct impl;
    const impl& layout() const { return *impl_; }

private:
    std::unique_ptr<impl> impl_;
};

}  // namespace cuzk::cuda
