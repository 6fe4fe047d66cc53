// Merkle inclusion (rust-fil-proofs gadgets/por.rs PoRCircuit, private root): climbs from an
// allocated leaf through the base tree, then at most one sub level and one top level, and checks
// the computed root against an allocated root. Per level of arity k = 2^m:
//   m index bits (m booleanity constraints), k - 1 sibling variables, insert (insertion.hpp), hash.
// Then the index bits of all levels, base first, go into public inputs with multipack (one input
// per 254 bits: the leaf index itself), and one constraint enforces computed root == root.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/gadgets/tree_hash.hpp"
#include "common/merkle/merkle_tree.hpp"

namespace cuzk::gadgets {

// A tree's shape as the circuit walks it: |base_levels| levels of arity |base|, then a level of
// arity |sub| and one of arity |top| when those are non-zero.
struct merkle_arities {
    unsigned base = 2;
    unsigned base_levels = 0;
    unsigned sub = 0;
    unsigned top = 0;

    size_t levels() const { return base_levels + (sub ? 1 : 0) + (top ? 1 : 0); }
    unsigned arity_of_level(size_t level) const;
};

using merkle_path_level = merkle::path_level;

// |path| has levels() entries with arity - 1 siblings each; it is ignored (and may be empty) when the
// system has no witness. Throws std::invalid_argument on a path of another shape.
void enforce_merkle_inclusion(cs::constraint_system& cs, tree_hasher hasher, const merkle_arities& shape,
                              const allocated_num& leaf, const allocated_num& root,
                              std::span<const merkle_path_level> path);

// Constraints of one inclusion without the leaf and root allocations (for size estimates and tests).
uint64_t merkle_inclusion_constraints(tree_hasher hasher, const merkle_arities& shape);

}  // namespace cuzk::gadgets
