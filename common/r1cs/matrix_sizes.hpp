// The counts that size a circuit's matrices: what matrix_counter finds without storing a term, what the
// recorder reserves before it records, and what the matrix file's length follows from.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/r1cs/r1cs_matrices.hpp"

namespace cuzk::r1cs {

struct matrix_sizes {
    std::uint64_t circuit_rows = 0;
    std::uint64_t num_inputs = 0;  // ONE included
    std::uint64_t num_aux = 0;
    std::uint64_t a_terms = 0, b_terms = 0, c_terms = 0;
    std::uint64_t coefficients = 0;  // distinct, 1 and -1 included

    std::uint64_t non_zeros() const { return a_terms + b_terms + c_terms; }
    friend bool operator==(const matrix_sizes&, const matrix_sizes&) = default;
};

inline matrix_sizes sizes_of(const r1cs_matrices& m) {
    return {m.circuit_rows, m.num_inputs, m.num_aux, m.a.non_zeros(), m.b.non_zeros(), m.c.non_zeros(),
            m.coefficients.size()};
}

// Columns are 32-bit indices into z = (inputs, aux): a variable beyond them throws std::length_error
// (a 32 GiB PoRep partition uses about 2^27).
inline void check_column_space(std::uint64_t z_size) {
    if (z_size >= (std::uint64_t(1) << 32))
        throw std::length_error("the circuit has more than 2^32 variables, beyond the 32-bit columns of the R1CS "
                                "matrix format (" + std::to_string(z_size) + " allocated)");
}

// Host bytes of the matrices once recorded: row starts (8 bytes), terms (4-byte column, 2-byte coefficient
// index), coefficients (32 bytes), density bitmaps.
inline std::uint64_t memory_bytes(const matrix_sizes& s) {
    auto words = [](std::uint64_t bits) { return (bits + 63) / 64; };
    return 3 * 8 * (s.circuit_rows + 1) + 6 * s.non_zeros() + 32 * s.coefficients +
           8 * (2 * words(s.num_aux) + words(s.num_inputs));
}

}  // namespace cuzk::r1cs
