// A test circuit with every aux variable in A, the case where gpud runs L and A as one MSM (the PoRep circuits
// are not one: they leave 416,601 of 130,169,893 out at 32 GiB, by their scalar census); the registry's
// circuits each leave one out (a mul chain's first value is only in B). |bits| boolean
// variables with random values (b (b - 1) = 0: zeros and ones for the MSMs), then a squaring chain of
// |chain| values (x_(k+1) = x_k^2), the last one the public input.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"

namespace cuzk::test {

class every_aux_in_a final : public circuits::circuit {
public:
    every_aux_in_a(size_t bits, size_t chain, uint64_t seed) : bits_(bits), chain_(chain), seed_(seed) {}
    std::string name() const override { return "every-aux-in-a"; }
    void synthesize(cs::constraint_system& cs) const override {
        std::mt19937_64 rng(seed_);
        for (size_t i = 0; i < bits_; ++i) {
            const cs::variable b = cs.alloc((rng() & 1) ? ff::fr_t::one() : ff::fr_t::zero());
            cs.enforce(cs::linear_combination(b), cs::linear_combination(b) - cs::constraint_system::one(),
                       cs::linear_combination());
        }
        ff::fr_t x = start();
        cs::variable v = cs.alloc(x);
        for (size_t k = 1; k <= chain_; ++k) {
            x = x * x;
            const cs::variable next = k == chain_ ? cs.alloc_input(x) : cs.alloc(x);
            cs.enforce(cs::linear_combination(v), cs::linear_combination(v), cs::linear_combination(next));
            v = next;
        }
    }
    std::vector<ff::fr_t> public_inputs() const override {
        ff::fr_t x = start();
        for (size_t k = 0; k < chain_; ++k) x = x * x;
        return {x};
    }

private:
    ff::fr_t start() const { return ff::fr_t::from_u64(3 + seed_ % 1000); }
    size_t bits_, chain_;
    uint64_t seed_;
};

}  // namespace cuzk::test
