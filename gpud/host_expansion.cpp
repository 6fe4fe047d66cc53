#include "gpud/host_expansion.hpp"

#include <stdexcept>

#include "common/witness/compact_vector_expansion.hpp"

namespace cuzk::gpud {

groth16::density_view a_aux_density(const r1cs::r1cs_matrices& m) { return {m.a_aux_density, m.num_aux}; }
groth16::density_view b_input_density(const r1cs::r1cs_matrices& m) { return {m.b_input_density, m.num_inputs}; }
groth16::density_view b_aux_density(const r1cs::r1cs_matrices& m) { return {m.b_aux_density, m.num_aux}; }

std::unique_ptr<expanded_partition> expand_on_host(const compact_partition& w) {
    if (!w.matrices) throw std::invalid_argument("a compact partition without its circuit's matrices");
    const r1cs::r1cs_matrices& m = *w.matrices;
    r1cs::check_witness_sizes(m, w.inputs.size(), w.aux.size);
    auto out = std::make_unique<expanded_partition>();
    out->aux = witness::expand(w.aux);
    out->rows = r1cs::evaluate_rows(m, w.inputs, out->aux);
    auto& v = out->view;
    v.a = out->rows.a;
    v.b = out->rows.b;
    v.c = out->rows.c;
    v.inputs = w.inputs;
    v.aux = out->aux;
    v.a_aux_density = a_aux_density(m);
    v.b_input_density = b_input_density(m);
    v.b_aux_density = b_aux_density(m);
    return out;
}

}  // namespace cuzk::gpud
