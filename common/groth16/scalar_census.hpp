// How a synthesized partition's MSM scalars divide into the classes the provers treat differently: zero
// (skipped), one (the point is added once, no window digits), small (below 2^64: Pippenger's upper windows
// see only zero digits) and the rest (full 255-bit scalars, every window). The GPU benchmarks time the
// partition's L, A and B MSMs with made-up scalars ("PoRep-like": 45 % zero, 45 % one, 10 % random, and a B
// query of 44 M points); this census of a real partition's witness says how close that is.
#pragma once

#include <cstdint>
#include <span>

#include "common/ff/bls12_381.hpp"
#include "common/groth16/prover_stages.hpp"

namespace cuzk::groth16 {

struct scalar_classes {
    std::uint64_t zero = 0;
    std::uint64_t one = 0;
    std::uint64_t small = 0;  // neither 0 nor 1, canonical value below 2^64
    std::uint64_t other = 0;  // canonical value 2^64 or more

    std::uint64_t total() const { return zero + one + small + other; }
    scalar_classes& operator+=(const scalar_classes& o);
    friend bool operator==(const scalar_classes&, const scalar_classes&) = default;
};

// The classes of x[i] for every i whose bit is set in |selected| (every i when null). Runs on the TBB worker
// threads. |selected| must have x.size() bits (std::invalid_argument otherwise, naming |what|).
scalar_classes classify_scalars(std::span<const ff::fr_t> x, const density_view* selected = nullptr,
                                const char* what = "scalars");

// The scalars of one partition's MSMs as bellperson's prover builds them (prover_stages.hpp):
//   l: every aux variable (against the L query)
//   a: every input (ONE included), then the aux variables in A's density
//   b: the inputs and aux variables in B's density (B_G1 and B_G2 share them)
// H's scalars are the coefficients of the quotient polynomial: not counted here.
struct partition_census {
    scalar_classes l, a, b;
};
partition_census census_of(const witness_view& w);

}  // namespace cuzk::groth16
