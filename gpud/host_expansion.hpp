// A compact partition made whole on the host: the aux values expanded and the rows a, b, c computed from the
// circuit's matrices (r1cs::evaluate_rows), with a witness_view over them and the matrices' densities. The CPU
// backend proves from it; it is also the reference the GPU's expansion and products are tested against. Host memory
// is the full witness's (~17 GB at the 32 GiB PoRep shape), which is why the CUDA backend computes the same on the
// device instead.
#pragma once

#include <memory>
#include <vector>

#include "common/groth16/prover_stages.hpp"
#include "common/r1cs/matrix_product.hpp"
#include "gpud/proving_backend.hpp"

namespace cuzk::gpud {

struct expanded_partition {
    std::vector<ff::fr_t> aux;
    r1cs::prover_rows rows;
    groth16::witness_view view;  // over |rows|, the partition's inputs, |aux| and the matrices' densities
};

// Checks |w|'s sizes against its matrices (input_error naming both) and expands it. The result borrows |w|'s
// inputs and matrices.
std::unique_ptr<expanded_partition> expand_on_host(const compact_partition& w);

// The matrices' densities as the prover reads them.
groth16::density_view a_aux_density(const r1cs::r1cs_matrices& m);
groth16::density_view b_input_density(const r1cs::r1cs_matrices& m);
groth16::density_view b_aux_density(const r1cs::r1cs_matrices& m);

}  // namespace cuzk::gpud
