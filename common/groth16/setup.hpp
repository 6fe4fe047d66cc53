// Groth16 parameter generation from random toxic waste (bellperson's generate_random_parameters).
//
// Whoever knows tau, alpha, beta, gamma or delta can forge proofs, and this setup draws them from
// the caller's generator and forgets them: its parameters are for tests and benchmarks only. Real
// Filecoin parameters come from the multi-party ceremony and are read from their .params files.
//
// Layout (bellperson's): the domain has m = 2^k >= rows (circuit constraints plus one input row per
// input) points; h[i] = tau^i Z(tau) / delta for i < m - 1, Z = X^m - 1 (monomial basis);
// ic / l = (beta u_j(tau) + alpha v_j(tau) + w_j(tau)) / gamma (inputs) or / delta (aux);
// a = u_j(tau) G1 for inputs then aux, b_g1 / b_g2 = v_j(tau) G1 / G2 likewise, with the identity
// points (u_j(tau) = 0, v_j(tau) = 0) dropped. G1 and G2 are the standard generators.
//
// Cost: about (m + inputs + 2 aux) G1 and (B-dense variables) G2 fixed-base multiplications of
// ceil(256 / c) mixed additions each (c ~ 14 to 16 at these sizes), plus two synthesis passes.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "common/circuits/circuit.hpp"
#include "common/groth16/keys.hpp"
#include "common/groth16/randomness.hpp"

namespace cuzk::groth16 {

// Wall-clock seconds per stage.
struct setup_timings {
    double count_s = 0;      // counting pass (sizes the domain)
    double lagrange_s = 0;   // powers of tau and their inverse NTT into Lagrange coefficients
    double synthesis_s = 0;  // keypair assembly: QAP columns evaluated at tau
    double tables_s = 0;     // fixed-base tables for G1 and G2
    double h_s = 0;
    double ic_l_s = 0;
    double a_s = 0;
    double b_g1_s = 0;
    double b_g2_s = 0;
    double total_s = 0;
    std::string to_string() const;  // "count 0.01s, lagrange 0.20s, ..."
};

struct setup_result {
    parameters params;
    setup_timings timings;
    size_t num_constraints = 0;  // circuit rows, without the input rows
    size_t num_inputs = 0;       // with ONE
    size_t num_aux = 0;
    unsigned log_domain = 0;     // m = 2^log_domain
    // Always true here: the trapdoors came from a generator and these parameters are not secure.
    bool random_toxic_waste = true;
};

// Runs synth into a constraint system; called twice (count, then assemble): it must be deterministic.
using synthesize_fn = std::function<void(cs::constraint_system&)>;

// Throws std::invalid_argument when an aux variable is unconstrained (its l point would be the
// identity: bellperson refuses those circuits too) and std::length_error when the circuit needs a
// domain beyond 2^32.
setup_result generate_random_parameters(const synthesize_fn& synth, rng_fn rng = system_rng());
setup_result generate_random_parameters(const circuits::circuit& circuit, rng_fn rng = system_rng());

}  // namespace cuzk::groth16
