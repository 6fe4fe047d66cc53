#include "common/post/fallback_circuit.hpp"

#include <stdexcept>
#include <string>

#include "common/gadgets/num.hpp"
#include "common/gadgets/tree_hash.hpp"

namespace cuzk::post {

using gadgets::allocated_num;

fallback_circuit_shape fallback_circuit_shape::of(const registered_post_proof& proof) {
    fallback_circuit_shape s;
    s.sectors = proof.circuit_sectors();
    s.challenges = proof.circuit_challenges();
    s.tree_r = gadgets::merkle_arities{proof.tree.base, proof.base_tree_height(), proof.tree.sub, proof.tree.top};
    return s;
}

void synthesize_sector_slot(cs::constraint_system& cs, const fallback_circuit_shape& shape, const sector_slot* slot) {
    const sector_slot* w = cs.has_witness() ? slot : nullptr;
    if (cs.has_witness()) {
        if (!slot) throw std::invalid_argument("fallback PoSt circuit: a proving synthesis needs a witness");
        if (slot->challenges.size() != shape.challenges)
            throw std::invalid_argument("fallback PoSt circuit: a sector slot has " +
                                        std::to_string(slot->challenges.size()) + " challenges, the circuit " +
                                        std::to_string(shape.challenges));
    }
    allocated_num comm_r_last = gadgets::alloc_num(cs, w ? w->comm_r_last : ff::fr_t());
    allocated_num comm_c = gadgets::alloc_num(cs, w ? w->comm_c : ff::fr_t());
    allocated_num comm_r = gadgets::alloc_num(cs, w ? w->comm_r : ff::fr_t());
    gadgets::inputize(cs, comm_r);
    {
        cs::namespace_scope ns(cs, "H_comm_c_comm_r_last");
        allocated_num children[2] = {comm_c, comm_r_last};
        allocated_num h = gadgets::poseidon_node_hash(cs, children);
        gadgets::enforce_equal(cs, comm_r, h);
    }
    for (unsigned i = 0; i < shape.challenges; ++i) {
        cs::namespace_scope ns(cs, "challenge_inclusion", i);
        const challenge_opening* c = w ? &w->challenges[i] : nullptr;
        allocated_num leaf = gadgets::alloc_num(cs, c ? c->leaf : ff::fr_t());
        gadgets::enforce_merkle_inclusion(cs, gadgets::tree_hasher::poseidon, shape.tree_r, leaf, comm_r_last,
                                          c ? std::span<const merkle::path_level>(c->path)
                                            : std::span<const merkle::path_level>());
    }
}

void synthesize_fallback_post(cs::constraint_system& cs, const fallback_circuit_shape& shape,
                              const fallback_witness* witness) {
    if (cs.has_witness()) {
        if (!witness) throw std::invalid_argument("fallback PoSt circuit: a proving synthesis needs a witness");
        if (witness->sectors.size() != shape.sectors)
            throw std::invalid_argument("fallback PoSt circuit: " + std::to_string(witness->sectors.size()) +
                                        " sector slots, the circuit has " + std::to_string(shape.sectors));
    }
    for (unsigned i = 0; i < shape.sectors; ++i) {
        cs::namespace_scope ns(cs, "sector", i);
        synthesize_sector_slot(cs, shape, cs.has_witness() ? &witness->sectors[i] : nullptr);
    }
}

}  // namespace cuzk::post
