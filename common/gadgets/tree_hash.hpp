// The in-circuit node hashes of Filecoin's Merkle trees (filecoin-hashers hash_multi_leaf_circuit):
//   SHA256 (tree D, binary): each child to 255 little-endian bits (256 constraints), padded to 256
//     and reversed within bytes, SHA256 with padding (2 compressions for 2 children), the digest's
//     bits reversed within bytes, the first 254 packed into one element (the native hash clears the
//     top two bits of byte 31: the same value).
//   Poseidon (trees C and R): neptune's poseidon_hash of the children with the arity's constants.
#pragma once

#include <span>

#include "common/gadgets/num.hpp"

namespace cuzk::gadgets {

enum class tree_hasher { sha256, poseidon };

allocated_num sha256_node_hash(cs::constraint_system& cs, std::span<const allocated_num> children);
allocated_num poseidon_node_hash(cs::constraint_system& cs, std::span<const allocated_num> children);
allocated_num node_hash(cs::constraint_system& cs, tree_hasher hasher, std::span<const allocated_num> children);

}  // namespace cuzk::gadgets
