// Exact sizes of the StackedDRG partition circuit, blank (no witness), against the figures
// rust-fil-proofs publishes: its 8-node test circuits (storage-proofs-porep/tests/stacked_circuit.rs)
// and the 32 GiB production circuit (130,278,541 constraints, 328 inputs with ONE).
#include <gtest/gtest.h>

#include <chrono>

#include "common/cs/counting_cs.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/stacked_circuit.hpp"

namespace {

using namespace cuzk;
using porep::stacked_circuit_shape;

cs::counting_cs count(const stacked_circuit_shape& shape) {
    cs::counting_cs counter;
    porep::synthesize_stacked_partition(counter, shape, nullptr);
    return counter;
}

// 2 layers, 1 challenge, 8 nodes per base tree (LayerChallenges::new(2, 1)).
stacked_circuit_shape test_shape(unsigned tree_d_levels, gadgets::merkle_arities tree_c) {
    stacked_circuit_shape s;
    s.layers = 2;
    s.challenges = 1;
    s.tree_d_levels = tree_d_levels;
    s.tree_c = tree_c;
    return s;
}

TEST(StackedCircuitCount, RustFilProofsTestShapes) {
    struct expected {
        const char* name;
        stacked_circuit_shape shape;
        uint64_t constraints;
    };
    const expected cases[] = {
        {"poseidon base 2 (8 nodes)", test_shape(3, {2, 3, 0, 0}), 1'206'212},
        {"poseidon base 8 (8 nodes)", test_shape(3, {8, 1, 0, 0}), 1'199'620},
        {"poseidon 8-4 (32 nodes)", test_shape(5, {8, 1, 4, 0}), 1'296'576},
        {"poseidon 8-4-2 (64 nodes)", test_shape(6, {8, 1, 4, 2}), 1'346'982},
    };
    for (const expected& c : cases) {
        cs::counting_cs n = count(c.shape);
        EXPECT_EQ(n.num_inputs(), 22u) << c.name;
        EXPECT_EQ(n.num_constraints(), c.constraints) << c.name;
    }
}

TEST(StackedCircuitCount, Production32GiB) {
    const auto& proof = porep::registered_proof_by_name("StackedDrg32GiBV1_1");
    auto t0 = std::chrono::steady_clock::now();
    cs::counting_cs n = count(stacked_circuit_shape::of(proof));
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(n.num_constraints(), 130'278'541u);
    EXPECT_EQ(n.num_inputs(), 328u);
    std::printf("32 GiB partition: %llu constraints, %llu inputs, %llu aux, counted in %.2f s\n",
                (unsigned long long)n.num_constraints(), (unsigned long long)n.num_inputs(),
                (unsigned long long)n.num_aux(), s);
}

}  // namespace
