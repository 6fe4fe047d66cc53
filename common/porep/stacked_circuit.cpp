#include "common/porep/stacked_circuit.hpp"

#include <stdexcept>
#include <string>

#include "common/gadgets/num.hpp"
#include "common/gadgets/poseidon_gadget.hpp"
#include "common/gadgets/sha256.hpp"
#include "common/gadgets/tree_hash.hpp"
#include "common/gadgets/uint32.hpp"
#include "common/gadgets/uint64.hpp"

namespace cuzk::porep {

using gadgets::allocated_num;
using gadgets::boolean;
using gadgets::tree_hasher;

stacked_circuit_shape stacked_circuit_shape::of(const registered_proof& p) {
    stacked_circuit_shape s;
    s.layers = p.layers;
    s.challenges = p.challenges_per_partition;
    s.tree_d_levels = p.tree_d_height();
    s.tree_c = gadgets::merkle_arities{p.tree.base, p.base_tree_height(), p.tree.sub, p.tree.top};
    s.drg_degree = p.drg_degree;
    s.expansion_degree = p.expansion_degree;
    return s;
}

uint64_t stacked_public_inputs(const stacked_circuit_shape& s) {
    return 3 + uint64_t(s.challenges) * (1 + s.drg_degree + s.expansion_degree + 3);
}

namespace {

// Labels hash 37 parents: layer 1 has only the 6 DRG parents (repeated 6 times, then the first);
// later layers the 14 DRG + expander parents, twice, then the first 9 (vanilla create_label).
constexpr size_t TOTAL_PARENTS = 37;

const std::vector<merkle::path_level> no_path;

struct allocated_column {
    std::vector<allocated_num> rows;
};

// rust-fil-proofs' Column::alloc, hash_single_column and the tree C inclusion of the hash.
allocated_column alloc_column_and_check(cs::constraint_system& cs, const stacked_circuit_shape& shape,
                                        const column_opening* opening, const allocated_num& comm_c) {
    allocated_column col;
    col.rows.reserve(shape.layers);
    for (unsigned r = 0; r < shape.layers; ++r)
        col.rows.push_back(gadgets::alloc_num(cs, opening ? opening->rows[r] : ff::fr_t()));
    allocated_num hash = gadgets::poseidon_node_hash(cs, col.rows);
    gadgets::enforce_merkle_inclusion(cs, tree_hasher::poseidon, shape.tree_c, hash, comm_c,
                                      opening ? opening->path : no_path);
    return col;
}

// create_label_circuit: SHA256(replica_id || layer u32 BE || node u64 BE || zero pad to 512 bits ||
// 37 parents x 256 bits), digest bits reversed within bytes, first 254 packed.
allocated_num create_label(cs::constraint_system& cs, const std::vector<boolean>& replica_id_bits,
                           const std::vector<std::vector<boolean>>& parents, unsigned layer,
                           const gadgets::uint64& node) {
    std::vector<boolean> preimage;
    preimage.reserve((2 + TOTAL_PARENTS) * 256);
    preimage.insert(preimage.end(), replica_id_bits.begin(), replica_id_bits.end());
    while (preimage.size() < 256) preimage.push_back(boolean::constant(false));
    gadgets::uint32::constant(layer).append_bits_be(preimage);
    std::vector<boolean> node_bits = node.bits_be();
    preimage.insert(preimage.end(), node_bits.begin(), node_bits.end());
    while (preimage.size() < 512) preimage.push_back(boolean::constant(false));
    for (const std::vector<boolean>& p : parents) {
        preimage.insert(preimage.end(), p.begin(), p.end());
        while (preimage.size() % 256 != 0) preimage.push_back(boolean::constant(false));
    }
    std::vector<boolean> digest;
    {
        cs::namespace_scope ns(cs, "hash");
        digest = gadgets::reverse_bit_numbering(gadgets::sha256(cs, preimage));
    }
    cs::namespace_scope ns(cs, "result_num");
    return gadgets::pack_bits(cs, std::span<const boolean>(digest).first(254));
}

std::vector<boolean> label_bits(cs::constraint_system& cs, const allocated_num& label) {
    return gadgets::reverse_bit_numbering(gadgets::num_to_bits_le(cs, label));
}

void check_witness(const stacked_circuit_shape& s, const partition_witness& w) {
    auto fail = [](const std::string& what) { throw std::invalid_argument("stacked circuit witness: " + what); };
    if (w.challenges.size() != s.challenges)
        fail(std::to_string(w.challenges.size()) + " challenges, the partition has " + std::to_string(s.challenges));
    for (size_t i = 0; i < w.challenges.size(); ++i) {
        const challenge_witness& c = w.challenges[i];
        const std::string at = "challenge " + std::to_string(i) + ": ";
        if (c.drg_parents.size() != s.drg_degree || c.exp_parents.size() != s.expansion_degree)
            fail(at + std::to_string(c.drg_parents.size()) + " DRG and " + std::to_string(c.exp_parents.size()) +
                 " expander parent columns, expected " + std::to_string(s.drg_degree) + " and " +
                 std::to_string(s.expansion_degree));
        if (c.comm_d_path.size() != s.tree_d_levels)
            fail(at + "tree D path has " + std::to_string(c.comm_d_path.size()) + " levels, expected " +
                 std::to_string(s.tree_d_levels));
        for (const auto* cols : {&c.drg_parents, &c.exp_parents})
            for (const column_opening& col : *cols)
                if (col.rows.size() != s.layers)
                    fail(at + "a parent column has " + std::to_string(col.rows.size()) + " rows, expected " +
                         std::to_string(s.layers));
    }
}

void synthesize_challenge(cs::constraint_system& cs, const stacked_circuit_shape& shape, const challenge_witness* w,
                          const allocated_num& comm_d, const allocated_num& comm_c, const allocated_num& comm_r_last,
                          const std::vector<boolean>& replica_id_bits) {
    allocated_num data_leaf = gadgets::alloc_num(cs, w ? w->data_leaf : ff::fr_t());
    {
        cs::namespace_scope ns(cs, "comm_d_inclusion");
        gadgets::merkle_arities tree_d{2, shape.tree_d_levels, 0, 0};
        gadgets::enforce_merkle_inclusion(cs, tree_hasher::sha256, tree_d, data_leaf, comm_d,
                                          w ? w->comm_d_path : no_path);
    }

    std::vector<allocated_column> drg_parents, exp_parents;
    for (unsigned i = 0; i < shape.drg_degree; ++i) {
        cs::namespace_scope ns(cs, "drg_parent", i);
        drg_parents.push_back(alloc_column_and_check(cs, shape, w ? &w->drg_parents[i] : nullptr, comm_c));
    }
    for (unsigned i = 0; i < shape.expansion_degree; ++i) {
        cs::namespace_scope ns(cs, "exp_parent", i);
        exp_parents.push_back(alloc_column_and_check(cs, shape, w ? &w->exp_parents[i] : nullptr, comm_c));
    }

    gadgets::uint64 challenge;
    {
        cs::namespace_scope ns(cs, "challenge");
        challenge = gadgets::uint64::alloc(cs, w ? w->challenge : 0);
        challenge.pack_into_input(cs);
    }

    std::vector<allocated_num> column_labels;
    column_labels.reserve(shape.layers);
    std::vector<std::vector<boolean>> parents, expanded;
    for (unsigned layer = 1; layer <= shape.layers; ++layer) {
        cs::namespace_scope ns(cs, "labeling", layer);
        parents.clear();
        for (const allocated_column& col : drg_parents) parents.push_back(label_bits(cs, col.rows[layer - 1]));
        // Expander parents are the previous layer's labels; layer 1 has none.
        if (layer > 1)
            for (const allocated_column& col : exp_parents) parents.push_back(label_bits(cs, col.rows[layer - 2]));
        expanded.clear();
        while (expanded.size() + parents.size() <= TOTAL_PARENTS)
            expanded.insert(expanded.end(), parents.begin(), parents.end());
        for (size_t i = 0; expanded.size() < TOTAL_PARENTS; ++i) expanded.push_back(parents[i]);
        cs::namespace_scope label_ns(cs, "create_label");
        column_labels.push_back(create_label(cs, replica_id_bits, expanded, layer, challenge));
    }

    {
        cs::namespace_scope ns(cs, "encode_node");
        allocated_num encoded = gadgets::add_nums(cs, column_labels.back(), data_leaf);
        cs::namespace_scope inc(cs, "comm_r_last_data_inclusion");
        gadgets::enforce_merkle_inclusion(cs, tree_hasher::poseidon, shape.tree_c, encoded, comm_r_last,
                                          w ? w->comm_r_last_path : no_path);
    }
    {
        cs::namespace_scope ns(cs, "c_x");
        allocated_num column_hash = gadgets::poseidon_node_hash(cs, column_labels);
        gadgets::enforce_merkle_inclusion(cs, tree_hasher::poseidon, shape.tree_c, column_hash, comm_c,
                                          w ? w->comm_c_path : no_path);
    }
}

}  // namespace

void synthesize_stacked_partition(cs::constraint_system& cs, const stacked_circuit_shape& shape,
                                  const partition_witness* witness) {
    const bool with_witness = cs.has_witness();
    if (with_witness) {
        if (!witness) throw std::invalid_argument("stacked circuit: a proving synthesis needs a witness");
        check_witness(shape, *witness);
    }
    const partition_witness* w = with_witness ? witness : nullptr;

    allocated_num replica_id = gadgets::alloc_num(cs, w ? w->replica_id : ff::fr_t());
    gadgets::inputize(cs, replica_id);
    std::vector<boolean> replica_id_bits = gadgets::reverse_bit_numbering(gadgets::num_to_bits_le(cs, replica_id));

    allocated_num comm_d = gadgets::alloc_num(cs, w ? w->comm_d : ff::fr_t());
    gadgets::inputize(cs, comm_d);
    allocated_num comm_r = gadgets::alloc_num(cs, w ? w->comm_r : ff::fr_t());
    gadgets::inputize(cs, comm_r);
    allocated_num comm_r_last = gadgets::alloc_num(cs, w ? w->comm_r_last : ff::fr_t());
    allocated_num comm_c = gadgets::alloc_num(cs, w ? w->comm_c : ff::fr_t());
    {
        cs::namespace_scope ns(cs, "H_comm_c_comm_r_last");
        allocated_num children[2] = {comm_c, comm_r_last};
        allocated_num h = gadgets::poseidon_node_hash(cs, children);
        gadgets::enforce_equal(cs, comm_r, h);
    }
    for (unsigned i = 0; i < shape.challenges; ++i) {
        cs::namespace_scope ns(cs, "challenge", i);
        synthesize_challenge(cs, shape, w ? &w->challenges[i] : nullptr, comm_d, comm_c, comm_r_last, replica_id_bits);
    }
}

}  // namespace cuzk::porep
