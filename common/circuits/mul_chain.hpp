// "mul:<n>[@seed]": the smallest useful test circuit. Private x_0, x_1 (derived from the seed) and
// x_{k+1} = x_k * x_{k-1} for k = 1..n; each product is one constraint, the last product x_{n+1}
// is the single public input. n constraints, n + 1 aux variables, 1 public input (2 with ONE).
// Every aux variable appears in A and B of some constraint, so prover tests exercise both queries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"

namespace cuzk::circuits {

class mul_chain final : public circuit {
public:
    explicit mul_chain(size_t n, std::string seed = std::string());

    std::string name() const override;
    void synthesize(cs::constraint_system& cs) const override;
    std::vector<ff::fr_t> public_inputs() const override;

    size_t size() const { return n_; }

private:
    size_t n_;
    std::string seed_;
    ff::fr_t x0_, x1_;
};

}  // namespace cuzk::circuits
