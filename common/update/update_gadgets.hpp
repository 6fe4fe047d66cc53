// The gadgets the SnapDeals circuit is built from that the PoRep and PoSt circuits do not have
// (storage-proofs-update gadgets.rs, storage-proofs-core por_no_challenge_input), each with the same variables
// and constraints, in the same order and with the same A / B / C placement, as bellperson synthesizes them:
//
//   merkle_root_check     climb a tree from a leaf with index bits the caller already allocated and sibling
//                         variables it already allocated; per level insert + node hash; no bits allocated, no
//                         public input; then computed_root * 1 = root (1)
//   bits_of_num           255 allocated little-endian bits (255) and sum 2^i bit_i * 1 = num (1)
//   apex_por              the apex tree of a partition (binary SHA256, 2^a - 1 hashes of 45,379) and its root's
//                         path to comm_d along the partition bits (per level 2 + 45,379), then 1:
//                         317,654 for 8 apex leaves and no partition level, 5,808,515 for 128 and one
//   gen_challenge_bits    per digest: digest_index alloc (1), H_GR (311), bits_of_num (256) = 568
//   challenge_high        for each of the 6 allowed h: pack the top h bits (1), times its h_select bit (1);
//                         their sum (1): 13
//   encode_label          label_r_new = label_r_old + label_d_new * rho: product (1), sum (1)
#pragma once

#include <span>
#include <vector>

#include "common/gadgets/merkle_inclusion.hpp"
#include "common/gadgets/num.hpp"

namespace cuzk::update {

using gadgets::allocated_num;
using gadgets::boolean;

// |siblings[l]| are level l's arity - 1 allocated siblings (leaf upward); |index_bits| exactly the shape's
// index bits, least significant first, each an allocated bit. Throws std::invalid_argument on a mismatch.
void merkle_root_check(cs::constraint_system& cs, gadgets::tree_hasher hasher, const gadgets::merkle_arities& shape,
                       std::span<const boolean> index_bits, const allocated_num& leaf,
                       std::span<const std::vector<allocated_num>> siblings, const allocated_num& root);

// |num| as 255 allocated bits, least significant first, with the packing constraint (rust-fil-proofs
// allocated_num_to_allocated_bits; unlike gadgets::num_to_bits_le, whose packing row is 0 * 0 = sum - num).
std::vector<boolean> bits_of_num(cs::constraint_system& cs, const allocated_num& num);

// |apex_leaves| (a power of two) hashed pairwise up to one root; that root's path (one allocated sibling per
// level, |partition_path|) along |partition_bits| must end at |comm_d|.
void apex_por(cs::constraint_system& cs, std::span<const allocated_num> apex_leaves,
              std::span<const boolean> partition_bits, std::span<const allocated_num> partition_path,
              const allocated_num& comm_d);

// The random bits of |challenges| challenges, |bits_per_challenge| each, drawn from digests
// H_GR(comm_r_new, partition * digests + j) with digests = ceil(challenges / (254 / bits_per_challenge)).
std::vector<std::vector<boolean>> gen_challenge_bits(cs::constraint_system& cs, const allocated_num& comm_r_new,
                                                     const allocated_num& partition, unsigned challenges,
                                                     unsigned bits_per_challenge);

// The top h bits of |c_bits| (little-endian) as a number, h = dot(hs, h_select_bits) (exactly one bit set).
allocated_num challenge_high(cs::constraint_system& cs, std::span<const boolean> c_bits,
                             std::span<const boolean> h_select_bits, std::span<const unsigned> hs);

// label_r_old + label_d_new * rho.
allocated_num encode_label(cs::constraint_system& cs, const allocated_num& label_r_old,
                           const allocated_num& label_d_new, const allocated_num& rho);

// H_GR(a, b) in-circuit: the Poseidon gadget with the gen-randomness constants (311 constraints).
allocated_num gen_randomness_hash_circuit(cs::constraint_system& cs, const allocated_num& a, const allocated_num& b);

}  // namespace cuzk::update
