// A SnapDeals partition as a circuits::circuit, so the generic Groth16 setup, prover and benchmarks take it like
// any built-in circuit ("update:<registered update proof>[@seed]"): blank (setup, counting) or with a witness,
// whose public values give the public inputs a verifier will use (public_inputs.hpp).
//
// And the partitions of one update from the vanilla proofs Curio sends, after the checks filecoin-proofs makes
// before it proves (EmptySectorUpdate::verify over every partition): the openings hash to their roots and share
// them, the apex trees reach comm_d_new (vanilla_verify.hpp), comm_r_old / comm_r_new are Poseidon(comm_c, root),
// the challenges are partition_challenges of comm_r_new and the encoding holds at each (vanilla_encoding.hpp).
// A proof that fails is refused naming its source, partition and challenge before any synthesis is spent on it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/update/empty_sector_update_circuit.hpp"
#include "common/update/update_shape.hpp"
#include "common/update/vanilla_encoding.hpp"
#include "common/update/vanilla_proof.hpp"

namespace cuzk::update {

class update_partition_circuit final : public circuits::circuit {
public:
    // The blank circuit (setup, sizes): synthesizing it into a system with a witness throws.
    explicit update_partition_circuit(const registered_update_proof& proof);
    update_partition_circuit(const registered_update_proof& proof, update_partition_witness witness);
    // A shape that is no registered proof (the test sizes 1 .. 32 KiB); |name| only names it.
    update_partition_circuit(const update_shape& shape, std::string name,
                             std::optional<update_partition_witness> witness = {});

    // "update:<registered update proof>", or the spec set by set_name (the registry adds "@seed").
    std::string name() const override { return name_; }
    void set_name(std::string spec) { name_ = std::move(spec); }
    void synthesize(cs::constraint_system& cs) const override;
    // generate_public_inputs of the witness's k, h and commitments; empty for the blank circuit.
    std::vector<ff::fr_t> public_inputs() const override { return public_inputs_; }

    const update_shape& shape() const { return shape_; }
    const std::optional<update_partition_witness>& witness() const { return witness_; }

private:
    update_shape shape_;
    std::string name_;
    std::optional<update_partition_witness> witness_;
    std::vector<ff::fr_t> public_inputs_;
};

// The circuit of every partition of an update of |proof|, partition k at position k, from exactly
// partition_count vanilla proofs in partition order. |sources| names each proof (a file) in errors, or is empty.
// Throws cuzk::input_error. |verify| false skips the native checks (the shape checks stay), for proofs this
// service verified already.
std::vector<update_partition_circuit> partition_circuits_of(const registered_update_proof& proof,
                                                            std::span<const partition_proof> partitions,
                                                            const update_commitments& pub,
                                                            std::span<const std::string> sources = {},
                                                            bool verify = true);

}  // namespace cuzk::update
