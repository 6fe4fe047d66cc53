// A PoRep partition as a circuits::circuit, so the generic Groth16 setup, prover and benchmarks
// take it like any built-in circuit: blank (setup, counting) or with a partition witness and the
// public inputs a verifier will use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/stacked_circuit.hpp"

namespace cuzk::porep {

class porep_partition_circuit final : public circuits::circuit {
public:
    // The blank circuit (setup, sizes): synthesizing it into a system with a witness throws.
    explicit porep_partition_circuit(const registered_proof& proof);
    // |public_inputs|: generate_public_inputs for this partition (without ONE).
    porep_partition_circuit(const registered_proof& proof, partition_witness witness,
                            std::vector<ff::fr_t> public_inputs);

    // "porep:<registered proof>", or the spec set by set_name (the registry adds "@seed").
    std::string name() const override { return name_.empty() ? "porep:" + std::string(proof_.name) : name_; }
    void set_name(std::string spec) { name_ = std::move(spec); }
    void synthesize(cs::constraint_system& cs) const override;
    std::vector<ff::fr_t> public_inputs() const override { return public_inputs_; }

    const registered_proof& proof() const { return proof_; }
    const stacked_circuit_shape& shape() const { return shape_; }

private:
    const registered_proof& proof_;
    stacked_circuit_shape shape_;
    std::optional<partition_witness> witness_;
    std::vector<ff::fr_t> public_inputs_;
    std::string name_;
};

}  // namespace cuzk::porep
