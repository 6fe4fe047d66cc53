#include "common/r1cs/matrix_counter.hpp"

namespace cuzk::r1cs {

cs::variable matrix_counter::alloc(const ff::fr_t&) {
    check_column_space(sizes_.num_inputs + sizes_.num_aux);
    return cs::variable::aux(std::uint32_t(sizes_.num_aux++));
}

cs::variable matrix_counter::alloc_input(const ff::fr_t&) {
    check_column_space(sizes_.num_inputs + sizes_.num_aux);
    return cs::variable::input(std::uint32_t(sizes_.num_inputs++));
}

void matrix_counter::count_coefficients(const cs::linear_combination& lc) {
    for (const cs::term& t : lc) coefficients_.index_of(t.coeff);
}

void matrix_counter::enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                             const cs::linear_combination& c) {
    ++sizes_.circuit_rows;
    sizes_.a_terms += a.size();
    sizes_.b_terms += b.size();
    sizes_.c_terms += c.size();
    count_coefficients(a);
    count_coefficients(b);
    count_coefficients(c);
}

matrix_sizes matrix_counter::sizes() const {
    matrix_sizes s = sizes_;
    s.coefficients = coefficients_.size();
    return s;
}

}  // namespace cuzk::r1cs
