// A fallback PoSt partition as a circuits::circuit, so the generic Groth16 setup, prover and benchmarks take
// it like any built-in circuit: blank (setup, counting) or with a witness and the public inputs a verifier
// will use.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/post/fallback_circuit.hpp"
#include "common/post/registered_post_proof.hpp"

namespace cuzk::post {

class post_partition_circuit final : public circuits::circuit {
public:
    // The blank circuit (setup, sizes): synthesizing it into a system with a witness throws.
    explicit post_partition_circuit(const registered_post_proof& proof);
    // |public_inputs|: generate_public_inputs for this partition (without ONE).
    post_partition_circuit(const registered_post_proof& proof, fallback_witness witness,
                           std::vector<ff::fr_t> public_inputs);

    // "post:<registered PoSt proof>", or the spec set by set_name (the registry adds "@seed").
    std::string name() const override { return name_.empty() ? "post:" + std::string(proof_.name) : name_; }
    void set_name(std::string spec) { name_ = std::move(spec); }
    void synthesize(cs::constraint_system& cs) const override;
    std::vector<ff::fr_t> public_inputs() const override { return public_inputs_; }

    const registered_post_proof& proof() const { return proof_; }
    const fallback_circuit_shape& shape() const { return shape_; }
    const std::optional<fallback_witness>& witness() const { return witness_; }

private:
    const registered_post_proof& proof_;
    fallback_circuit_shape shape_;
    std::optional<fallback_witness> witness_;
    std::vector<ff::fr_t> public_inputs_;
    std::string name_;
};

}  // namespace cuzk::post
