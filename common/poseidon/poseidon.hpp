// Native Poseidon over BLS12-381 Fr, bit-for-bit as neptune (Filecoin's Poseidon, the version
// rust-fil-proofs pins) hashes a full Merkle-tree preimage: state = [domain tag 2^arity - 1,
// preimage...], the permutation, output = state[1].
//
// hash() runs neptune's optimized form (compressed constants, a sparse matrix per partial round);
// hash_textbook() runs the plain permutation of the Poseidon paper with the uncompressed
// constants. Both give the same output; the optimized one costs, per hash of width t, about
//   R_F * (t^2 + 3t) + R_P * (2t + 2) multiplications in Fr
// (1,900 for arity 8, 2,800 for arity 11), against R_F * (t^2 + 3t) + R_P * (t^2 + 3) textbook.
//
// All functions are reentrant; constants come from constants_for() (built once per arity).
#pragma once

#include <cstddef>
#include <span>

#include "common/ff/bls12_381.hpp"
#include "common/poseidon/constants.hpp"

namespace cuzk::poseidon {

// The optimized permutation on |state| (c.width elements), in place.
void permute(const poseidon_constants& c, ff::fr_t* state);
// The textbook permutation: per round, add the round's t constants, S-box (all elements in a full
// round, element 0 in a partial round), multiply by the MDS matrix.
void permute_textbook(const poseidon_constants& c, ff::fr_t* state);

// Hash of exactly c.arity elements; throws std::invalid_argument on another length.
ff::fr_t hash(const poseidon_constants& c, std::span<const ff::fr_t> preimage);
ff::fr_t hash_textbook(const poseidon_constants& c, std::span<const ff::fr_t> preimage);
// Picks the constants by preimage.size() (1..MAX_ARITY).
ff::fr_t hash(std::span<const ff::fr_t> preimage, strength s = strength::standard);

// Two-to-one hash (comm_r = H(comm_c, comm_r_last), binary Poseidon trees).
ff::fr_t hash2(const ff::fr_t& a, const ff::fr_t& b);

// out[k] = hash(preimages[k*arity .. (k+1)*arity)) for every k: the loop tree builders run over a
// level. preimages.size() must be out.size() * c.arity.
void hash_many(const poseidon_constants& c, std::span<const ff::fr_t> preimages, std::span<ff::fr_t> out);

}  // namespace cuzk::poseidon
