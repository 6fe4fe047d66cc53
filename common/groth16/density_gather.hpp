// The elements of a vector that a density bitmap selects, gathered in order: the A and B scalars of a
// partition (the assignment's variables that the A and B queries have points for). Runs on the TBB worker
// threads: per block of the bitmap, its selected count (popcount), then each block's elements copied to
// its offset, a whole 64-bit word at a time where every bit is set.
#pragma once

#include <cstddef>
#include <span>

#include "common/ff/bls12_381.hpp"
#include "common/groth16/prover_stages.hpp"

namespace cuzk::groth16 {

// Throws std::invalid_argument naming |what| unless |density| has |n| bits and none set beyond them (a bitmap
// read from a ring slot is checked, not trusted: gather_dense would copy past both arrays).
void check_density(const density_view& density, std::size_t n, const char* what);

// Copy-constructs x[i] for every i < x.size() whose bit is set in |density|, in order, at out[0], out[1], ...
// (storage for density.count() elements, not overlapping |x|); returns how many (= density.count()).
// Checks |density| first (check_density), writing nothing when it fails.
std::size_t gather_dense(std::span<const ff::fr_t> x, const density_view& density, ff::fr_t* out);

}  // namespace cuzk::groth16
