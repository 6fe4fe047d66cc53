#include "common/gadgets/merkle_inclusion.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "common/cs/counting_cs.hpp"
#include "common/gadgets/insertion.hpp"
#include "common/gadgets/multipack.hpp"

namespace cuzk::gadgets {

unsigned merkle_arities::arity_of_level(size_t level) const {
    if (level < base_levels) return base;
    if (level == base_levels && sub) return sub;
    return top;
}

namespace {

void check_path(const merkle_arities& shape, std::span<const merkle_path_level> path) {
    if (path.size() != shape.levels())
        throw std::invalid_argument("merkle inclusion: path has " + std::to_string(path.size()) +
                                    " levels, the tree has " + std::to_string(shape.levels()));
    for (size_t l = 0; l < path.size(); ++l) {
        unsigned arity = shape.arity_of_level(l);
        if (path[l].siblings.size() != arity - 1 || path[l].index >= arity)
            throw std::invalid_argument("merkle inclusion: level " + std::to_string(l) + " has " +
                                        std::to_string(path[l].siblings.size()) + " siblings and index " +
                                        std::to_string(path[l].index) + "; arity " + std::to_string(arity) +
                                        " needs " + std::to_string(arity - 1) + " and an index below it");
    }
}

}  // namespace

void enforce_merkle_inclusion(cs::constraint_system& cs, tree_hasher hasher, const merkle_arities& shape,
                              const allocated_num& leaf, const allocated_num& root,
                              std::span<const merkle_path_level> path) {
    const bool witness = cs.has_witness();
    if (witness) check_path(shape, path);
    for (unsigned a : {shape.base, shape.sub, shape.top})
        if (a != 0 && !std::has_single_bit(a))
            throw std::invalid_argument("merkle inclusion: arity " + std::to_string(a) + " is not a power of two");

    std::vector<boolean> index_bits;
    std::vector<allocated_num> siblings;
    allocated_num cur = leaf;
    for (size_t level = 0; level < shape.levels(); ++level) {
        const unsigned arity = shape.arity_of_level(level);
        const unsigned bits = unsigned(std::countr_zero(arity));
        const uint32_t index = witness ? path[level].index : 0;
        size_t first_bit = index_bits.size();
        for (unsigned i = 0; i < bits; ++i) index_bits.push_back(boolean::alloc(cs, (index >> i) & 1));
        siblings.clear();
        for (unsigned i = 0; i + 1 < arity; ++i)
            siblings.push_back(alloc_num(cs, witness ? path[level].siblings[i] : ff::fr_t()));
        std::vector<allocated_num> children =
            insert(cs, cur, std::span<const boolean>(index_bits).subspan(first_bit, bits), siblings);
        cur = node_hash(cs, hasher, children);
    }
    pack_into_inputs(cs, index_bits);
    enforce_equal(cs, cur, root);
}

uint64_t merkle_inclusion_constraints(tree_hasher hasher, const merkle_arities& shape) {
    cs::counting_cs counter;
    allocated_num leaf = alloc_num(counter, ff::fr_t());
    allocated_num root = alloc_num(counter, ff::fr_t());
    enforce_merkle_inclusion(counter, hasher, shape, leaf, root, {});
    return counter.num_constraints();
}

}  // namespace cuzk::gadgets
