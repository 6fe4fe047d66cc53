#include "common/gadgets/tree_hash.hpp"

#include <vector>

#include "common/gadgets/poseidon_gadget.hpp"
#include "common/gadgets/sha256.hpp"

namespace cuzk::gadgets {

allocated_num sha256_node_hash(cs::constraint_system& cs, std::span<const allocated_num> children) {
    std::vector<boolean> preimage;
    preimage.reserve(children.size() * 256);
    for (const allocated_num& child : children) {
        std::vector<boolean> bits = reverse_bit_numbering(num_to_bits_le(cs, child));
        preimage.insert(preimage.end(), bits.begin(), bits.end());
    }
    std::vector<boolean> digest = reverse_bit_numbering(sha256(cs, preimage));
    return pack_bits(cs, std::span<const boolean>(digest).first(254));
}

allocated_num poseidon_node_hash(cs::constraint_system& cs, std::span<const allocated_num> children) {
    std::vector<cs::variable> vars;
    std::vector<ff::fr_t> values;
    vars.reserve(children.size());
    for (const allocated_num& c : children) vars.push_back(c.var);
    if (cs.has_witness()) {
        values.reserve(children.size());
        for (const allocated_num& c : children) values.push_back(c.value);
    }
    poseidon_output out = poseidon_hash(cs, vars, values);
    return allocated_num{out.var, out.value};
}

allocated_num node_hash(cs::constraint_system& cs, tree_hasher hasher, std::span<const allocated_num> children) {
    return hasher == tree_hasher::sha256 ? sha256_node_hash(cs, children) : poseidon_node_hash(cs, children);
}

}  // namespace cuzk::gadgets
