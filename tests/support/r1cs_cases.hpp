// Circuits and their references for the tests of the R1CS product on the device (test_device_r1cs_on_host on
// every machine, test_cuda_r1cs on a GPU): a circuit's matrices as the recorder records them, its rows, z and A/B
// scalars as groth16::proving_assignment and prepare_partition make them (the reference), and its witness as
// witness::witness_assignment keeps it (inputs in full, aux compact).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"
#include "common/groth16/density_gather.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/r1cs/matrix_recorder.hpp"
#include "common/witness/witness_assignment.hpp"

namespace cuzk::test {

// Rows of every length around the GPU's thresholds (gpud/cuda/r1cs_plan.hpp: 16 terms a thread, pieces of 1024
// terms a warp), up to several pieces, among many short ones; coefficients 1, -1, 0, 2, powers of two and
// random ones; inputs in A and B (ONE among them); variables named twice in a row; values 0, 1 and random,
// the aux values of the last eighth in no A row (A's density not full). Not satisfied: only the rows matter.
class long_rows_circuit final : public circuits::circuit {
public:
    // |short_rows|: the short rows after each long one; many give a domain (2^log_m) larger than A's scalars.
    explicit long_rows_circuit(uint64_t seed, size_t short_rows = 40) : seed_(seed), short_rows_(short_rows) {}
    std::string name() const override { return "long-rows"; }
    void synthesize(cs::constraint_system& cs) const override {
        std::mt19937_64 rng(seed_);
        auto value = [&rng] {
            const unsigned k = unsigned(rng() % 20);
            return k < 9 ? ff::fr_t::zero() : k < 18 ? ff::fr_t::one() : ff::fr_t::from_u64(rng()) * ff::fr_t::from_u64(rng());
        };
        std::vector<cs::variable> in{cs::constraint_system::one()};
        for (ff::fr_t v : public_inputs()) in.push_back(cs.alloc_input(v));
        std::vector<cs::variable> aux;
        for (size_t i = 0; i < AUX; ++i) aux.push_back(cs.alloc(value()));
        auto coefficient = [&rng] {
            switch (rng() % 8) {
                case 0: case 1: case 2: return cs::FR_ONE;
                case 3: case 4: return cs::FR_MINUS_ONE;
                case 5: return ff::fr_t::zero();
                case 6: return cs::fr_pow2(unsigned(rng() % 254));
                default: return ff::fr_t::from_u64(rng()) * ff::fr_t::from_u64(rng());
            }
        };
        // |terms| terms over aux [0, aux_end) and, one in ten, the inputs; the previous term repeated now and then.
        auto combination = [&](size_t terms, size_t aux_end) {
            cs::linear_combination lc;
            cs::variable last = in[0];
            for (size_t t = 0; t < terms; ++t) {
                const unsigned pick = unsigned(rng() % 10);
                const cs::variable v = t > 0 && pick == 0 ? last : pick == 1 ? in[rng() % in.size()] : aux[rng() % aux_end];
                lc.add_term(v, coefficient());
                last = v;
            }
            return lc;
        };
        const size_t a_end = AUX - AUX / 8;
        const std::vector<size_t> lengths = {0,  1,   2,    3,    15,   16,   17,   31,   32,  33,
                                             64, 100, 1023, 1024, 1025, 2047, 2048, 2049, 4100};
        for (size_t i = 0; i < lengths.size(); ++i) {
            cs.enforce(combination(lengths[i], a_end), combination(lengths[(i + 7) % lengths.size()], AUX),
                       combination(lengths[(i + 13) % lengths.size()], AUX));
            for (size_t k = 0; k < short_rows_; ++k)
                cs.enforce(combination(rng() % 20, a_end), combination(rng() % 4, AUX), combination(rng() % 3, AUX));
        }
    }
    std::vector<ff::fr_t> public_inputs() const override {
        return {ff::fr_t::zero(), ff::fr_t::one(), ff::fr_t::from_u64(seed_ + 5)};
    }

private:
    static constexpr size_t AUX = 6000;
    uint64_t seed_;
    size_t short_rows_;
};

struct r1cs_case {
    r1cs::r1cs_matrices m;
    groth16::proving_assignment pa;  // finished: its rows hold the input rows too
    witness::witness_assignment wa;

    // z = [inputs | aux] in full.
    std::vector<ff::fr_t> z() const {
        std::vector<ff::fr_t> v(pa.inputs());
        v.insert(v.end(), pa.aux().begin(), pa.aux().end());
        return v;
    }
    // A's and B's scalars as prepare_partition gathers them (groth16/prover_stages.cpp, density_gather.hpp).
    std::vector<ff::fr_t> a_scalars() const {
        const groth16::witness_view w = groth16::view_of(pa);
        std::vector<ff::fr_t> v(pa.inputs());
        v.resize(pa.inputs().size() + w.a_aux_density.count());
        groth16::gather_dense(w.aux, w.a_aux_density, v.data() + pa.inputs().size());
        return v;
    }
    std::vector<ff::fr_t> b_scalars() const {
        const groth16::witness_view w = groth16::view_of(pa);
        const size_t n_in = w.b_input_density.count();
        std::vector<ff::fr_t> v(n_in + w.b_aux_density.count());
        groth16::gather_dense(w.inputs, w.b_input_density, v.data());
        groth16::gather_dense(w.aux, w.b_aux_density, v.data() + n_in);
        return v;
    }
};

// Records |c|'s matrices (blank syntheses) and synthesizes it with its witness into both assignments.
inline std::unique_ptr<r1cs_case> make_r1cs_case(const circuits::circuit& c) {
    auto k = std::make_unique<r1cs_case>();
    k->m = r1cs::record_matrices(c);
    c.synthesize(k->pa);
    k->pa.finish();
    c.synthesize(k->wa);
    return k;
}

}  // namespace cuzk::test
