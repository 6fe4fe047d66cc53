// A circuit: something that synthesizes itself into any constraint system, with the public inputs
// it will expose computed natively (so a proof can be checked without re-running synthesis).
// Synthesis is deterministic and identical with and without a witness (see constraint_system.hpp).
#pragma once

#include <string>
#include <vector>

#include "common/cs/constraint_system.hpp"

namespace cuzk::circuits {

class circuit {
public:
    virtual ~circuit() = default;
    // The canonical spec that make_circuit() accepts to build this circuit again.
    virtual std::string name() const = 0;
    virtual void synthesize(cs::constraint_system& cs) const = 0;
    // The values of the public inputs synthesize() allocates, in order, without ONE.
    virtual std::vector<ff::fr_t> public_inputs() const = 0;
};

}  // namespace cuzk::circuits
