#include "common/r1cs/matrix_recorder.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <stdexcept>

#include "common/cs/stoppable_cs.hpp"
#include "common/porep/porep_circuit.hpp"
#include "common/r1cs/matrix_counter.hpp"

namespace cuzk::r1cs {

namespace {

// While recording, the input count is not final, so an input's column is its index tagged with this bit
// and finish() renumbers every column into z = (inputs, aux). Inputs and aux each stay below 2^31.
constexpr std::uint32_t INPUT_TAG = std::uint32_t(1) << 31;

void check_index(std::uint64_t count, const char* what) {
    if (count >= INPUT_TAG)
        throw std::length_error(
            fmt::format("matrix_recorder: more than 2^31 {} variables, beyond the recorder's column numbering", what));
}

void set_bit(std::vector<std::uint64_t>& words, std::uint32_t i) { words[i / 64] |= std::uint64_t(1) << (i % 64); }

void reserve(sparse_rows& m, std::uint64_t rows, std::uint64_t terms) {
    m.row_start.reserve(rows + 1);
    m.column.reserve(terms);
    m.coeff.reserve(terms);
}

}  // namespace

matrix_recorder::matrix_recorder(std::optional<matrix_sizes> expected) : expected_(expected) {
    m_.num_inputs = 1;  // ONE
    m_.b_input_density.push_back(0);
    for (sparse_rows* s : {&m_.a, &m_.b, &m_.c}) s->row_start.push_back(0);
    if (expected_) {
        const matrix_sizes& e = *expected_;
        reserve(m_.a, e.circuit_rows, e.a_terms);
        reserve(m_.b, e.circuit_rows, e.b_terms);
        reserve(m_.c, e.circuit_rows, e.c_terms);
        m_.a_aux_density.reserve((e.num_aux + 63) / 64);
        m_.b_aux_density.reserve((e.num_aux + 63) / 64);
        m_.b_input_density.reserve((e.num_inputs + 63) / 64);
    }
}

cs::variable matrix_recorder::alloc(const ff::fr_t&) {
    check_index(m_.num_aux, "aux");
    if (m_.num_aux % 64 == 0) {
        m_.a_aux_density.push_back(0);
        m_.b_aux_density.push_back(0);
    }
    return cs::variable::aux(std::uint32_t(m_.num_aux++));
}

cs::variable matrix_recorder::alloc_input(const ff::fr_t&) {
    check_index(m_.num_inputs, "input");
    if (m_.num_inputs % 64 == 0) m_.b_input_density.push_back(0);
    return cs::variable::input(std::uint32_t(m_.num_inputs++));
}

void matrix_recorder::record(const cs::linear_combination& lc, sparse_rows& m,
                             std::vector<std::uint64_t>* input_density, std::vector<std::uint64_t>* aux_density) {
    for (const cs::term& t : lc) {
        const std::uint32_t i = t.var.index;
        if (t.var.is_input()) {
            if (input_density) set_bit(*input_density, i);
            m.column.push_back(i | INPUT_TAG);
        } else {
            if (aux_density) set_bit(*aux_density, i);
            m.column.push_back(i);
        }
        m.coeff.push_back(coefficients_.index_of(t.coeff));
    }
    m.row_start.push_back(m.column.size());
}

void matrix_recorder::enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                              const cs::linear_combination& c) {
    record(a, m_.a, nullptr, &m_.a_aux_density);
    record(b, m_.b, &m_.b_input_density, &m_.b_aux_density);
    record(c, m_.c, nullptr, nullptr);
    ++m_.circuit_rows;
}

r1cs_matrices matrix_recorder::finish() {
    m_.coefficients = std::move(coefficients_).take();
    if (expected_ && sizes_of(m_) != *expected_) {
        const matrix_sizes& e = *expected_;
        const matrix_sizes r = sizes_of(m_);
        throw std::logic_error(fmt::format(
            "matrix_recorder: the synthesis recorded differs from the one counted (is it not deterministic?): "
            "rows {} / {}, inputs {} / {}, aux {} / {}, terms A {} / {}, B {} / {}, C {} / {}, coefficients {} / {}",
            r.circuit_rows, e.circuit_rows, r.num_inputs, e.num_inputs, r.num_aux, e.num_aux, r.a_terms, e.a_terms,
            r.b_terms, e.b_terms, r.c_terms, e.c_terms, r.coefficients, e.coefficients));
    }
    check_column_space(m_.z_size());
    const std::uint32_t aux_base = std::uint32_t(m_.num_inputs);
    for (sparse_rows* s : {&m_.a, &m_.b, &m_.c}) {
        std::uint32_t* col = s->column.data();
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, s->column.size(), std::size_t(1) << 16),
                          [col, aux_base](const tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t t = r.begin(); t != r.end(); ++t)
                                  col[t] = col[t] & INPUT_TAG ? col[t] & ~INPUT_TAG : aux_base + col[t];
                          });
    }
    return std::move(m_);
}

r1cs_matrices record_matrices(const synthesize_fn& synthesize, const std::stop_token& stop, const std::string& name) {
    // Without a stop that can be asked, the syntheses go to the counter and the recorder directly.
    auto run = [&](cs::constraint_system& target, const char* pass) {
        if (!stop.stop_possible()) return synthesize(target);
        cs::stoppable_cs watched(target, stop, fmt::format("{} {}", pass, name));
        synthesize(watched);
    };
    matrix_counter counter;
    run(counter, "counting the constraints of");
    matrix_recorder recorder(counter.sizes());
    run(recorder, "recording the matrices of");
    return recorder.finish();
}

r1cs_matrices record_matrices(const circuits::circuit& circuit, const std::stop_token& stop) {
    try {
        return record_matrices([&circuit](cs::constraint_system& cs) { circuit.synthesize(cs); }, stop,
                               circuit.name());
    } catch (const std::length_error& e) {
        throw std::length_error(circuit.name() + ": " + e.what());
    }
}

r1cs_matrices record_porep_matrices(const porep::registered_proof& proof, const std::stop_token& stop) {
    return record_matrices(porep::porep_partition_circuit(proof), stop);
}

}  // namespace cuzk::r1cs
