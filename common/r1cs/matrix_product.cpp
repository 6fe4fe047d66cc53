#include "common/r1cs/matrix_product.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <stdexcept>

#include "common/util/errors.hpp"

namespace cuzk::r1cs {

namespace {

// The matrices and the witness as the row loop reads them: z[col] is inputs[col] below num_inputs, else
// aux[col - num_inputs].
struct operands {
    const ff::fr_t* coefficients;
    const ff::fr_t* inputs;
    const ff::fr_t* aux;
    std::uint32_t num_inputs;

    ff::fr_t dot(const sparse_rows& m, std::size_t row) const {
        ff::fr_t acc;
        const std::uint64_t end = m.row_start[row + 1];
        for (std::uint64_t t = m.row_start[row]; t != end; ++t) {
            const std::uint32_t col = m.column[t];
            const ff::fr_t& w = col < num_inputs ? inputs[col] : aux[col - num_inputs];
            switch (m.coeff[t]) {
                case 0: acc += w; break;
                case 1: acc -= w; break;
                default:
                    if (w.is_zero()) break;
                    if (w == ff::fr_t::one())
                        acc += coefficients[m.coeff[t]];
                    else
                        acc += coefficients[m.coeff[t]] * w;
            }
        }
        return acc;
    }
};

}  // namespace

void check_witness_sizes(const r1cs_matrices& m, std::size_t num_inputs, std::size_t num_aux) {
    if (num_inputs != m.num_inputs || num_aux != m.num_aux)
        throw input_error(fmt::format(
            "the witness has {} inputs (ONE included) and {} aux values; the circuit's R1CS matrices take {} inputs "
            "and {} aux values (a witness of another circuit or another registered proof?)",
            num_inputs, num_aux, m.num_inputs, m.num_aux));
}

void evaluate_rows(const r1cs_matrices& m, std::span<const ff::fr_t> inputs, std::span<const ff::fr_t> aux,
                   std::span<ff::fr_t> a, std::span<ff::fr_t> b, std::span<ff::fr_t> c) {
    check_witness_sizes(m, inputs.size(), aux.size());
    if (inputs.empty() || inputs[0] != ff::fr_t::one())
        throw input_error("the witness's first input is not ONE (inputs must start with the constant 1)");
    const std::uint64_t rows = m.prover_rows();
    if (a.size() != rows || b.size() != rows || c.size() != rows)
        throw std::invalid_argument(fmt::format("evaluate_rows: a, b, c hold {}, {}, {} rows; the prover needs {}",
                                                a.size(), b.size(), c.size(), rows));
    const operands z{m.coefficients.data(), inputs.data(), aux.data(), std::uint32_t(m.num_inputs)};
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, m.circuit_rows, 4096),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t row = r.begin(); row != r.end(); ++row) {
                              a[row] = z.dot(m.a, row);
                              b[row] = z.dot(m.b, row);
                              c[row] = z.dot(m.c, row);
                          }
                      });
    // bellperson's input rows input_i * 0 = 0.
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        a[m.circuit_rows + i] = inputs[i];
        b[m.circuit_rows + i] = ff::fr_t::zero();
        c[m.circuit_rows + i] = ff::fr_t::zero();
    }
}

prover_rows evaluate_rows(const r1cs_matrices& m, std::span<const ff::fr_t> inputs, std::span<const ff::fr_t> aux) {
    check_witness_sizes(m, inputs.size(), aux.size());
    prover_rows out;
    out.a.resize(m.prover_rows());
    out.b.resize(m.prover_rows());
    out.c.resize(m.prover_rows());
    evaluate_rows(m, inputs, aux, out.a, out.b, out.c);
    return out;
}

}  // namespace cuzk::r1cs
