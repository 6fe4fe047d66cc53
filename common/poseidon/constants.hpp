// Everything one Poseidon instance needs, per (arity, strength), as neptune's PoseidonConstants
// for the Merkle-tree hash type: width t = arity + 1, domain tag 2^arity - 1 in state element 0,
// round numbers, the Grain round constants and their compressed form, the Cauchy MDS matrix, its
// inverse, and the sparse factorization of the partial rounds.
//
// Building a set costs a few milliseconds (the LFSR and the matrix inversions); constants_for()
// builds each set once, on first use, and returns the same object to every thread afterwards.
#pragma once

#include <cstddef>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/poseidon/mds.hpp"
#include "common/poseidon/round_numbers.hpp"

namespace cuzk::poseidon {

// neptune implements arities 1..36; Filecoin uses 2 (comm_r, 2-layer columns), 4 and 8 (trees),
// 11 (11-layer columns).
inline constexpr size_t MAX_ARITY = 36;

struct poseidon_constants {
    size_t arity = 0;
    size_t width = 0;  // t = arity + 1
    strength level = strength::standard;
    size_t full_rounds = 0;       // R_F
    size_t half_full_rounds = 0;  // R_F / 2
    size_t partial_rounds = 0;    // R_P
    ff::fr_t domain_tag;          // 2^arity - 1: neptune's HashType::MerkleTree

    std::vector<ff::fr_t> round_constants;             // (R_F + R_P) * t, textbook form
    std::vector<ff::fr_t> compressed_round_constants;  // t * R_F + R_P, optimized form
    square_matrix mds;
    square_matrix mds_inverse;
    square_matrix pre_sparse;
    std::vector<sparse_matrix> sparse;  // R_P
};

// Builds a fresh set (uncached).
poseidon_constants make_constants(size_t arity, strength s = strength::standard);

// The shared set for |arity| (1..MAX_ARITY); throws std::invalid_argument otherwise.
const poseidon_constants& constants_for(size_t arity, strength s = strength::standard);

}  // namespace cuzk::poseidon
