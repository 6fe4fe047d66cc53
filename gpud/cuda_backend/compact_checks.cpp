#include "gpud/cuda_backend/compact_checks.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/groth16/density_gather.hpp"
#include "common/r1cs/matrix_product.hpp"
#include "common/util/errors.hpp"
#include "gpud/host_expansion.hpp"

namespace cuzk::gpud {

namespace {

void expect_size(const char* what, size_t have, size_t need, const char* why) {
    if (have != need)
        throw std::invalid_argument(fmt::format(
            "parameters do not fit the circuit: {} has {} points, the circuit needs {} ({})", what, have, need, why));
}

}  // namespace

unsigned check_compact_partition(const compact_partition& w, const groth16::parameters& params) {
    if (!w.matrices) throw std::invalid_argument("a compact partition without its circuit's matrices");
    const r1cs::r1cs_matrices& m = *w.matrices;
    r1cs::check_witness_sizes(m, w.inputs.size(), w.aux.size);
    if (w.inputs.empty() || w.inputs[0] != ff::fr_t::one())
        throw input_error("the witness's first input is not ONE (inputs must start with the constant 1)");
    const size_t blocks = w.aux.blocks();
    if (w.aux.full_mask.size() != blocks || w.aux.bit_value.size() != blocks || w.aux.full_before.size() != blocks)
        throw input_error(fmt::format("the compact aux vector of {} values has block arrays of {}, {} and {} entries, "
                                      "not {}",
                                      w.aux.size, w.aux.full_mask.size(), w.aux.bit_value.size(),
                                      w.aux.full_before.size(), blocks));

    const groth16::density_view a_aux = a_aux_density(m), b_in = b_input_density(m), b_aux = b_aux_density(m);
    groth16::check_density(a_aux, m.num_aux, "R1CS A aux");
    groth16::check_density(b_in, m.num_inputs, "R1CS B input");
    groth16::check_density(b_aux, m.num_aux, "R1CS B aux");
    const unsigned log_m = m.prover_domain_log();
    const size_t n_in = m.num_inputs, n_aux = m.num_aux, n = size_t(1) << log_m;
    const size_t a_count = n_in + a_aux.count(), b_count = b_in.count() + b_aux.count();
    expect_size("vk.ic", params.vk.ic.size(), n_in, "one per input, ONE included");
    expect_size("h", params.h.size(), n - 1, "domain size minus one");
    expect_size("l", params.l.size(), n_aux, "one per aux variable");
    expect_size("a", params.a.size(), a_count, "every input and the aux variables used in A");
    expect_size("b_g1", params.b_g1.size(), b_count, "inputs and aux variables used in B");
    expect_size("b_g2", params.b_g2.size(), b_count, "inputs and aux variables used in B");
    return log_m;
}

}  // namespace cuzk::gpud
