// The recording constraint system: synthesized without a witness (as setup synthesizes), it keeps every
// enforce's three linear combinations as rows of the matrices A, B and C, coefficients deduplicated into
// the table, and the densities bellperson's prover would build (proving_assignment.hpp: a variable is
// present once a term names it, whatever its coefficient).
//
// Memory is the matrices themselves, 6 bytes a term and 24 a row (memory_bytes in matrix_sizes.hpp): 7.7 GB
// for a 32 GiB PoRep partition (756 M terms, 130 M rows). Given the counts beforehand (matrix_counter), the recorder reserves
// exactly and nothing is reallocated, so the peak is the result; without them the vectors grow by doubling.
#pragma once

#include <functional>
#include <optional>
#include <stop_token>
#include <string>

#include "common/circuits/circuit.hpp"
#include "common/cs/constraint_system.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/r1cs/coefficient_table.hpp"
#include "common/r1cs/matrix_sizes.hpp"
#include "common/r1cs/r1cs_matrices.hpp"

namespace cuzk::r1cs {

class matrix_recorder final : public cs::constraint_system {
public:
    // |expected|: the counts of the circuit about to be synthesized (matrix_counter), reserved up front and
    // checked by finish().
    explicit matrix_recorder(std::optional<matrix_sizes> expected = std::nullopt);

    cs::variable alloc(const ff::fr_t& value) override;
    cs::variable alloc_input(const ff::fr_t& value) override;
    void enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                 const cs::linear_combination& c) override;
    bool has_witness() const override { return false; }

    // The matrices, columns numbered in z = (inputs, aux) now that the input count is final. Throws
    // std::logic_error when the counts differ from |expected| (a synthesis that is not deterministic).
    // The recorder is spent afterwards.
    r1cs_matrices finish();

private:
    void record(const cs::linear_combination& lc, sparse_rows& m, std::vector<std::uint64_t>* input_density,
                std::vector<std::uint64_t>* aux_density);

    std::optional<matrix_sizes> expected_;
    coefficient_table coefficients_;
    r1cs_matrices m_;
};

using synthesize_fn = std::function<void(cs::constraint_system&)>;

// Counts, then records, the matrices of the circuit |synthesize| builds: two blank syntheses, and memory
// for the result only. Once |stop| is asked, either synthesis throws abandoned_error within 2^16 constraints
// (cs/stoppable_cs.hpp); |name| labels that error.
r1cs_matrices record_matrices(const synthesize_fn& synthesize, const std::stop_token& stop = {},
                              const std::string& name = "the circuit");
r1cs_matrices record_matrices(const circuits::circuit& circuit, const std::stop_token& stop = {});
// A PoRep partition of |proof|, synthesized blank as setup and circuit-info synthesize it.
r1cs_matrices record_porep_matrices(const porep::registered_proof& proof, const std::stop_token& stop = {});

}  // namespace cuzk::r1cs
