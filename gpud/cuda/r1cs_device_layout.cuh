// r1cs_device's device memory (r1cs_device.hpp), for the translation units that launch kernels over it.
#pragma once

#include <cstdint>

#include "gpud/cuda/device_buffer.cuh"
#include "gpud/cuda/r1cs_device.hpp"
#include "gpud/cuda/r1cs_plan.hpp"
#include "gpud/cuda/r1cs_rows.cuh"

namespace cuzk::cuda {

struct r1cs_device::impl {
    struct matrix {
        uint64_t rows = 0, terms = 0, n_pieces = 0, n_long = 0, long_terms = 0;
        device_buffer<uint32_t> row_start, column;  // rows + 1; terms
        device_buffer<uint16_t> coeff;              // terms
        device_buffer<r1cs_plan::piece> pieces;
        device_buffer<r1cs_plan::long_row> long_rows;

        r1cs_rows::matrix_view view() const { return {rows, row_start.get(), column.get(), coeff.get()}; }
        size_t bytes() const {
            return row_start.bytes() + column.bytes() + coeff.bytes() + pieces.bytes() + long_rows.bytes();
        }
    };
    struct density {
        uint64_t size = 0, count = 0;
        device_buffer<uint64_t> words;
        device_buffer<uint32_t> prefix;

        r1cs_rows::density_view view() const { return {size, words.get(), prefix.get()}; }
        size_t bytes() const { return words.bytes() + prefix.bytes(); }
    };

    int device = 0;
    uint64_t circuit_rows = 0, num_inputs = 0, num_aux = 0;
    matrix mat[3];  // A, B, C
    device_buffer<fr_t> coefficients;
    uint64_t n_coefficients = 0;
    density a_aux, b_input, b_aux;

    impl(const r1cs::r1cs_matrices& m, int device);
    uint64_t max_pieces() const {
        uint64_t n = 0;
        for (const auto& x : mat) n = n > x.n_pieces ? n : x.n_pieces;
        return n;
    }
};

}  // namespace cuzk::cuda
