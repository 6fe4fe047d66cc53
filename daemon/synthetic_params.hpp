// TEST FACILITY: parameters of a circuit's exact sizes made of pseudo-random points, for timing the prover at real
// sizes without the published files (a 32 GiB PoRep set is ~47 GB and not at hand on a test machine). They come
// from no setup: proofs made with them are NOT valid and must not be verified ([assemblerd] verify = false).
// gpud builds them in memory, never on disk, when [gpud] synthetic_params is set and a PoRep or PoSt .params file is
// missing (params_store.hpp).
//
// The sizes follow from the circuit's recorded matrices as a setup would make them, and are what
// groth16::prepare_partition checks: vk.ic one per input; h 2^log_m - 1 with 2^log_m >= the prover's rows; l one per
// aux variable; a the inputs and the aux variables in A; b_g1 and b_g2 the inputs and aux variables in B.
//
// Cost: about 7 field multiplications a point (an affine addition of a fixed point, the inversions shared by 1,024
// points), in G2 three times that, spread over every core with TBB; each chunk of 32,768 points starts from one
// scalar multiplication of the generator, so the points are distinct multiples of it. The vectors' pages are
// faulted in on every core before their (serial) construction.
#pragma once

#include <cstdint>
#include <stop_token>

#include "common/groth16/keys.hpp"
#include "common/r1cs/r1cs_matrices.hpp"

namespace cuzk::daemon {

struct parameter_counts {
    std::uint64_t ic = 0;  // vk.ic: the inputs, ONE included
    std::uint64_t h = 0;
    std::uint64_t l = 0;
    std::uint64_t a = 0;
    std::uint64_t b = 0;  // b_g1 and b_g2 each

    std::uint64_t g1_points() const { return ic + h + l + a + b; }
    std::uint64_t g2_points() const { return b; }
    friend bool operator==(const parameter_counts&, const parameter_counts&) = default;
};

// Throws std::length_error for a circuit whose domain would pass 2^32 points (the NTT's limit).
parameter_counts parameter_counts_of(const r1cs::r1cs_matrices& m);

// Points in the prime-order subgroups, none the identity; the same |seed| gives the same points. Once |stop| is asked
// the chunks not yet begun are skipped and it throws abandoned_error.
groth16::parameters synthetic_parameters(const parameter_counts& counts, std::uint64_t seed,
                                         const std::stop_token& stop = {});

}  // namespace cuzk::daemon
