// The public inputs of a SnapDeals partition (storage-proofs-update circuit.rs PublicInputs), after ONE:
//   k_and_h_select = k | h_select << partition_bit_len   (h_select = 2^i for h = hs[i]; 128 + k at 32 GiB, h 10)
//   comm_r_old, comm_d_new, comm_r_new
// The commitments are the field elements of their 32 bytes (tree R Poseidon roots; tree D's SHA256 root already
// has its top two bits cleared).
#pragma once

#include <cstdint>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/update/update_shape.hpp"

namespace cuzk::update {

// Throws cuzk::input_error for k >= partition_count or an h the shape does not allow.
uint64_t k_and_h_select(const update_shape& shape, unsigned k, unsigned h);

// The four inputs of partition |k| (ONE not included).
std::vector<ff::fr_t> generate_public_inputs(const update_shape& shape, unsigned k, unsigned h,
                                             const ff::fr_t& comm_r_old, const ff::fr_t& comm_d_new,
                                             const ff::fr_t& comm_r_new);

}  // namespace cuzk::update
