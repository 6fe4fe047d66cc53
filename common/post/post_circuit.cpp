#include "common/post/post_circuit.hpp"

#include <stdexcept>

namespace cuzk::post {

post_partition_circuit::post_partition_circuit(const registered_post_proof& proof)
    : proof_(proof), shape_(fallback_circuit_shape::of(proof)) {}

post_partition_circuit::post_partition_circuit(const registered_post_proof& proof, fallback_witness witness,
                                               std::vector<ff::fr_t> public_inputs)
    : proof_(proof),
      shape_(fallback_circuit_shape::of(proof)),
      witness_(std::move(witness)),
      public_inputs_(std::move(public_inputs)) {
    if (public_inputs_.size() != shape_.public_inputs())
        throw std::invalid_argument(name() + ": " + std::to_string(public_inputs_.size()) +
                                    " public inputs, the circuit has " + std::to_string(shape_.public_inputs()));
    if (witness_->sectors.size() != shape_.sectors)
        throw std::invalid_argument(name() + ": " + std::to_string(witness_->sectors.size()) +
                                    " sector slots, the circuit has " + std::to_string(shape_.sectors));
}

void post_partition_circuit::synthesize(cs::constraint_system& cs) const {
    if (cs.has_witness() && !witness_)
        throw std::invalid_argument(name() + ": the blank circuit has no witness to prove with");
    synthesize_fallback_post(cs, shape_, witness_ ? &*witness_ : nullptr);
}

}  // namespace cuzk::post
