// Checks of a MerkleProof held in memory (one built or changed in memory rather than read through
// read_merkle_proof, which checks as it reads) against the shape of its tree: the PoSt and SnapDeals vanilla
// proofs' shape checks both use them, so that one opening is judged, and its fault named, the same way.
#pragma once

#include <string>
#include <string_view>

#include "common/bincode/merkle_proof_bincode.hpp"

namespace cuzk::bincode {

// Why |d| is not a canonical field element ("<field> <hex> is not a canonical field element ..."), or "".
std::string non_canonical(const c1::domain_t& d, std::string_view field);

// Why |p| is no opening of a tree of |tree|'s shape, or "": the first of a wrong variant ("a Top proof,
// expected Sub for <tree_name>"), a path part of other levels, a level's sibling count or position, and a root,
// leaf or sibling that is not a canonical field element; path faults name the part and level ("base path
// level 3: ...").
std::string merkle_proof_mismatch(const c1::merkle_proof& p, const merkle_shape& tree, std::string_view tree_name);

}  // namespace cuzk::bincode
