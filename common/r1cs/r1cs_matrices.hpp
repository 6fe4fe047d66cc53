// The rank-1 constraint system of a circuit as data: the matrices A, B and C, recorded once per circuit shape
// (matrix_recorder.hpp) and kept beside its parameters (matrix_file.hpp). They are the same for every sector of a
// registered proof, so a prover that holds them needs from synthesis only the witness (inputs and aux values):
// the rows a = A.z, b = B.z, c = C.z are sparse matrix-vector products (matrix_product.hpp on the CPU,
// gpud/cuda/r1cs_* on the GPU).
//
// z is the full assignment: z[0] = ONE, z[1..num_inputs) the public inputs, z[num_inputs + j] aux j. The rows are
// the circuit's rows in enforce order; bellperson's input rows (input_i * 0 = 0, one per input, ONE included)
// are not stored: they follow the circuit rows with a = z[i], b = c = 0 (proving_assignment::finish).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/ff/bls12_381.hpp"

namespace cuzk::r1cs {

// One matrix in compressed sparse rows: row r's terms are [row_start[r], row_start[r + 1]); term t is
// coefficients[coeff[t]] * z[column[t]]. Terms are kept in the order the gadgets added them, duplicates
// included (they sum).
struct sparse_rows {
    std::vector<std::uint64_t> row_start;  // rows + 1 entries, row_start[0] == 0
    std::vector<std::uint32_t> column;     // index into z
    std::vector<std::uint16_t> coeff;      // index into r1cs_matrices::coefficients

    std::size_t rows() const { return row_start.empty() ? 0 : row_start.size() - 1; }
    std::size_t non_zeros() const { return column.size(); }
};

// The least log_m with 2^log_m >= rows: the NTT domain that holds |rows| rows.
inline unsigned domain_log(std::uint64_t rows) { return rows <= 1 ? 0 : unsigned(std::bit_width(rows - 1)); }

struct r1cs_matrices {
    std::uint64_t circuit_rows = 0;  // enforce calls
    std::uint64_t num_inputs = 0;    // ONE included
    std::uint64_t num_aux = 0;
    // Distinct coefficients in Montgomery form, coefficients[0] == 1 and coefficients[1] == -1 (the common
    // ones, so a kernel can add or subtract without a multiplication); at most 65536, the reach of coeff.
    std::vector<ff::fr_t> coefficients;
    sparse_rows a, b, c;
    // The densities bellperson's prover builds (a variable is present once any term names it, whatever its
    // coefficient): aux j in some A row, input i in some B row, aux j in some B row. Bit i of words[i / 64];
    // ceil(bits / 64) words each.
    std::vector<std::uint64_t> a_aux_density, b_input_density, b_aux_density;

    // Rows the prover's domain must hold: circuit rows, then one per input.
    std::uint64_t prover_rows() const { return circuit_rows + num_inputs; }
    // log2 of the NTT domain that holds them.
    unsigned prover_domain_log() const { return domain_log(prover_rows()); }
    std::uint64_t z_size() const { return num_inputs + num_aux; }
};

}  // namespace cuzk::r1cs
