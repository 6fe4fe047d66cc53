#include "common/porep/porep_circuit.hpp"

#include <stdexcept>

namespace cuzk::porep {

porep_partition_circuit::porep_partition_circuit(const registered_proof& proof)
    : proof_(proof), shape_(stacked_circuit_shape::of(proof)) {}

porep_partition_circuit::porep_partition_circuit(const registered_proof& proof, partition_witness witness,
                                                 std::vector<ff::fr_t> public_inputs)
    : proof_(proof),
      shape_(stacked_circuit_shape::of(proof)),
      witness_(std::move(witness)),
      public_inputs_(std::move(public_inputs)) {
    if (public_inputs_.size() != stacked_public_inputs(shape_))
        throw std::invalid_argument(name() + ": " + std::to_string(public_inputs_.size()) +
                                    " public inputs, the circuit has " + std::to_string(stacked_public_inputs(shape_)));
}

void porep_partition_circuit::synthesize(cs::constraint_system& cs) const {
    if (cs.has_witness() && !witness_)
        throw std::invalid_argument(name() + ": the blank circuit has no witness to prove with");
    synthesize_stacked_partition(cs, shape_, witness_ ? &*witness_ : nullptr);
}

}  // namespace cuzk::porep
