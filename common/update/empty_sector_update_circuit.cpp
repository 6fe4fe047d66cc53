#include "common/update/empty_sector_update_circuit.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>

#include "common/gadgets/insertion.hpp"
#include "common/gadgets/num.hpp"
#include "common/gadgets/tree_hash.hpp"
#include "common/update/public_inputs.hpp"
#include "common/update/update_gadgets.hpp"

namespace cuzk::update {

namespace {

using gadgets::alloc_num;
using cs::linear_combination;

void check_witness(const update_shape& shape, const update_partition_witness& w) {
    auto bad = [](const std::string& what) { throw std::invalid_argument("SnapDeals circuit witness: " + what); };
    if (w.apex_leaves.size() != shape.apex_leaf_count)
        bad(std::to_string(w.apex_leaves.size()) + " apex leaves, the circuit takes " +
            std::to_string(shape.apex_leaf_count));
    if (w.challenges.size() != shape.challenge_count)
        bad(std::to_string(w.challenges.size()) + " challenges, the circuit has " +
            std::to_string(shape.challenge_count));
    const gadgets::merkle_arities r = shape.tree_r_arities();
    for (size_t c = 0; c < w.challenges.size(); ++c) {
        const update_challenge_witness& ch = w.challenges[c];
        const std::string at = "challenge " + std::to_string(c) + ": ";
        for (const auto* path : {&ch.path_r_old, &ch.path_r_new}) {
            if (path->size() != r.levels())
                bad(at + "a tree R path of " + std::to_string(path->size()) + " levels, the tree has " +
                    std::to_string(r.levels()));
            for (size_t l = 0; l < path->size(); ++l)
                if ((*path)[l].size() + 1 != r.arity_of_level(l))
                    bad(at + "tree R level " + std::to_string(l) + " has " + std::to_string((*path)[l].size()) +
                        " siblings for arity " + std::to_string(r.arity_of_level(l)));
        }
        if (ch.path_d_new.size() != shape.tree_d_levels())
            bad(at + "a tree D path of " + std::to_string(ch.path_d_new.size()) + " levels, the tree has " +
                std::to_string(shape.tree_d_levels()));
        // The circuit checks the partition path once, from the first challenge: all must agree (circuit.rs
        // asserts the same).
        const size_t top = shape.tree_d_levels() - shape.partition_bit_len;
        if (!std::equal(ch.path_d_new.begin() + top, ch.path_d_new.end(), w.challenges[0].path_d_new.begin() + top))
            bad(at + "its tree D path's top " + std::to_string(shape.partition_bit_len) +
                " levels differ from the first challenge's");
    }
}

std::vector<allocated_num> alloc_all(cs::constraint_system& cs, const std::vector<ff::fr_t>* values, size_t n) {
    std::vector<allocated_num> out;
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.push_back(alloc_num(cs, values ? (*values)[i] : ff::fr_t()));
    return out;
}

// Sibling variables of a tree R path, all levels before any hashing (as circuit.rs allocates them).
std::vector<std::vector<allocated_num>> alloc_path(cs::constraint_system& cs, const gadgets::merkle_arities& shape,
                                                   const std::vector<std::vector<ff::fr_t>>* path) {
    std::vector<std::vector<allocated_num>> out(shape.levels());
    for (size_t l = 0; l < shape.levels(); ++l)
        out[l] = alloc_all(cs, path ? &(*path)[l] : nullptr, shape.arity_of_level(l) - 1);
    return out;
}

}  // namespace

void synthesize_empty_sector_update(cs::constraint_system& cs, const update_shape& shape,
                                    const update_partition_witness* witness) {
    const update_partition_witness* w = cs.has_witness() ? witness : nullptr;
    if (cs.has_witness()) {
        if (!witness) throw std::invalid_argument("SnapDeals circuit: a proving synthesis needs a witness");
        check_witness(shape, *witness);
    }
    const unsigned pbits = shape.partition_bit_len;
    const unsigned kh_bits = pbits + H_SELECT_BITS;

    // 1. k and h_select: one public input, its low bits allocated and tied to it.
    const uint64_t kh = w ? k_and_h_select(shape, w->k, w->h) : 0;
    allocated_num k_and_h = alloc_num(cs, ff::fr_t::from_u64(kh));
    gadgets::inputize(cs, k_and_h);
    std::vector<boolean> kh_bit;
    kh_bit.reserve(kh_bits);
    {
        cs::namespace_scope ns(cs, "k_and_h_select bits");
        for (unsigned i = 0; i < kh_bits; ++i) kh_bit.push_back(boolean::alloc(cs, (kh >> i) & 1));
        linear_combination sum;
        sum.reserve(kh_bits);
        for (unsigned i = 0; i < kh_bits; ++i) sum.add_term(kh_bit[i].var(), cs::fr_pow2(i));
        cs.enforce(sum, linear_combination(cs::variable::one()), linear_combination(k_and_h.var));
    }
    const std::span<const boolean> partition_bits = std::span<const boolean>(kh_bit).first(pbits);
    const std::span<const boolean> h_select_bits = std::span<const boolean>(kh_bit).subspan(pbits);
    allocated_num partition = gadgets::pack_bits(cs, partition_bits);

    // 2. The commitments, public.
    allocated_num comm_r_old = alloc_num(cs, w ? w->comm_r_old : ff::fr_t());
    gadgets::inputize(cs, comm_r_old);
    allocated_num comm_d_new = alloc_num(cs, w ? w->comm_d_new : ff::fr_t());
    gadgets::inputize(cs, comm_d_new);
    allocated_num comm_r_new = alloc_num(cs, w ? w->comm_r_new : ff::fr_t());
    gadgets::inputize(cs, comm_r_new);

    // 3. phi.
    allocated_num phi;
    {
        cs::namespace_scope ns(cs, "phi");
        phi = gen_randomness_hash_circuit(cs, comm_d_new, comm_r_old);
    }

    // 4. The partition's private values other than the challenges' openings.
    allocated_num comm_c = alloc_num(cs, w ? w->comm_c : ff::fr_t());
    allocated_num root_r_old = alloc_num(cs, w ? w->root_r_old : ff::fr_t());
    allocated_num root_r_new = alloc_num(cs, w ? w->root_r_new : ff::fr_t());
    std::vector<allocated_num> apex_leaves = alloc_all(cs, w ? &w->apex_leaves : nullptr, shape.apex_leaf_count);
    std::vector<allocated_num> partition_path;
    partition_path.reserve(pbits);
    for (unsigned i = 0; i < pbits; ++i)
        partition_path.push_back(
            alloc_num(cs, w ? w->challenges[0].path_d_new[shape.tree_d_levels() - pbits + i] : ff::fr_t()));

    // 5. comm_r = H(comm_c, root_r) for the old and the new replica (Merkle-tree Poseidon, tag 3).
    for (const auto& [root, comm_r, name] :
         {std::tuple{root_r_old, comm_r_old, "comm_r_old"}, std::tuple{root_r_new, comm_r_new, "comm_r_new"}}) {
        cs::namespace_scope ns(cs, name);
        const allocated_num children[2] = {comm_c, root};
        gadgets::enforce_equal(cs, gadgets::poseidon_node_hash(cs, children), comm_r);
    }

    // 6. The apex tree and its path to comm_d_new.
    {
        cs::namespace_scope ns(cs, "apex_por");
        apex_por(cs, apex_leaves, partition_bits, partition_path, comm_d_new);
    }

    // 7. The challenges' random bits.
    std::vector<std::vector<boolean>> generated;
    {
        cs::namespace_scope ns(cs, "gen_challenge_bits");
        generated = gen_challenge_bits(cs, comm_r_new, partition, shape.challenge_count,
                                       shape.random_bits_per_challenge());
    }

    // 8. Per challenge.
    const gadgets::merkle_arities tree_r = shape.tree_r_arities();
    const unsigned to_apex = shape.tree_d_levels_to_apex();
    const gadgets::merkle_arities tree_d_low{2, to_apex, 0, 0};
    for (unsigned c = 0; c < shape.challenge_count; ++c) {
        cs::namespace_scope ns(cs, "challenge", c);
        const update_challenge_witness* ch = w ? &w->challenges[c] : nullptr;
        // The challenge's index bits, least significant first: its random bits, then the partition's.
        std::vector<boolean> c_bits = generated[c];
        c_bits.insert(c_bits.end(), partition_bits.begin(), partition_bits.end());

        allocated_num high = challenge_high(cs, c_bits, h_select_bits, shape.hs);
        allocated_num rho = gen_randomness_hash_circuit(cs, phi, high);

        allocated_num leaf_r_old = alloc_num(cs, ch ? ch->leaf_r_old : ff::fr_t());
        allocated_num leaf_d_new = alloc_num(cs, ch ? ch->leaf_d_new : ff::fr_t());
        allocated_num leaf_r_new = encode_label(cs, leaf_r_old, leaf_d_new, rho);

        {
            cs::namespace_scope tree(cs, "tree_r_old");
            auto path = alloc_path(cs, tree_r, ch ? &ch->path_r_old : nullptr);
            merkle_root_check(cs, gadgets::tree_hasher::poseidon, tree_r, c_bits, leaf_r_old, path, root_r_old);
        }
        {
            cs::namespace_scope tree(cs, "tree_r_new");
            auto path = alloc_path(cs, tree_r, ch ? &ch->path_r_new : nullptr);
            merkle_root_check(cs, gadgets::tree_hasher::poseidon, tree_r, c_bits, leaf_r_new, path, root_r_new);
        }

        allocated_num apex_leaf;
        {
            cs::namespace_scope sel(cs, "apex leaf");
            apex_leaf = gadgets::select(cs, apex_leaves,
                                        std::span<const boolean>(c_bits).subspan(to_apex, shape.apex_leaf_bit_len));
        }
        {
            cs::namespace_scope tree(cs, "tree_d_new to apex leaf");
            std::vector<std::vector<allocated_num>> path(to_apex);
            for (unsigned l = 0; l < to_apex; ++l) path[l] = {alloc_num(cs, ch ? ch->path_d_new[l] : ff::fr_t())};
            merkle_root_check(cs, gadgets::tree_hasher::sha256, tree_d_low,
                              std::span<const boolean>(c_bits).first(to_apex), leaf_d_new, path, apex_leaf);
        }
    }
}

}  // namespace cuzk::update
