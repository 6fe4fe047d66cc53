#include "common/update/update_gadgets.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "common/gadgets/boolean.hpp"
#include "common/gadgets/insertion.hpp"
#include "common/gadgets/poseidon_gadget.hpp"
#include "common/gadgets/tree_hash.hpp"
#include "common/update/randomness_hash.hpp"

namespace cuzk::update {

using cs::linear_combination;

void merkle_root_check(cs::constraint_system& cs, gadgets::tree_hasher hasher, const gadgets::merkle_arities& shape,
                       std::span<const boolean> index_bits, const allocated_num& leaf,
                       std::span<const std::vector<allocated_num>> siblings, const allocated_num& root) {
    if (siblings.size() != shape.levels())
        throw std::invalid_argument("merkle root check: " + std::to_string(siblings.size()) + " path levels, the tree " +
                                    std::to_string(shape.levels()));
    size_t used = 0;
    allocated_num cur = leaf;
    for (size_t level = 0; level < shape.levels(); ++level) {
        const unsigned arity = shape.arity_of_level(level);
        const unsigned bits = unsigned(std::countr_zero(arity));
        if (siblings[level].size() != arity - 1 || used + bits > index_bits.size())
            throw std::invalid_argument("merkle root check: level " + std::to_string(level) + " has " +
                                        std::to_string(siblings[level].size()) + " siblings for arity " +
                                        std::to_string(arity) + ", or too few index bits");
        cs::namespace_scope ns(cs, "merkle level", level);
        std::vector<allocated_num> children = gadgets::insert(cs, cur, index_bits.subspan(used, bits), siblings[level]);
        used += bits;
        cur = gadgets::node_hash(cs, hasher, children);
    }
    // Every index bit names a position: a path that consumes fewer bits than given is the wrong tree.
    if (used != index_bits.size())
        throw std::invalid_argument("merkle root check: " + std::to_string(index_bits.size()) +
                                    " index bits for a tree of " + std::to_string(used));
    gadgets::enforce_equal(cs, cur, root);
}

std::vector<boolean> bits_of_num(cs::constraint_system& cs, const allocated_num& num) {
    std::vector<boolean> bits = gadgets::field_into_allocated_bits_le(cs, num.value);
    linear_combination sum;
    sum.reserve(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) sum.add_term(bits[i].var(), cs::fr_pow2(unsigned(i)));
    cs.enforce(sum, linear_combination(cs::variable::one()), linear_combination(num.var));
    return bits;
}

void apex_por(cs::constraint_system& cs, std::span<const allocated_num> apex_leaves,
              std::span<const boolean> partition_bits, std::span<const allocated_num> partition_path,
              const allocated_num& comm_d) {
    if (!std::has_single_bit(apex_leaves.size()))
        throw std::invalid_argument("apex_por: " + std::to_string(apex_leaves.size()) + " apex leaves");
    if (partition_path.size() != partition_bits.size())
        throw std::invalid_argument("apex_por: " + std::to_string(partition_path.size()) + " partition path levels for " +
                                    std::to_string(partition_bits.size()) + " partition bits");
    std::vector<allocated_num> row(apex_leaves.begin(), apex_leaves.end());
    for (size_t r = 0; row.size() > 1; ++r) {
        cs::namespace_scope ns(cs, "apex tree row", r);
        std::vector<allocated_num> next;
        next.reserve(row.size() / 2);
        for (size_t i = 0; i < row.size(); i += 2)
            next.push_back(gadgets::sha256_node_hash(cs, std::span<const allocated_num>(row).subspan(i, 2)));
        row = std::move(next);
    }
    std::vector<std::vector<allocated_num>> path;
    path.reserve(partition_path.size());
    for (const allocated_num& s : partition_path) path.push_back({s});
    cs::namespace_scope ns(cs, "partition path");
    merkle_root_check(cs, gadgets::tree_hasher::sha256,
                      gadgets::merkle_arities{2, unsigned(partition_bits.size()), 0, 0}, partition_bits, row[0],
                      path, comm_d);
}

allocated_num gen_randomness_hash_circuit(cs::constraint_system& cs, const allocated_num& a, const allocated_num& b) {
    const cs::variable vars[2] = {a.var, b.var};
    const ff::fr_t values[2] = {a.value, b.value};
    gadgets::poseidon_output out = gadgets::poseidon_hash(
        cs, vars, cs.has_witness() ? std::span<const ff::fr_t>(values) : std::span<const ff::fr_t>(),
        gen_randomness_constants());
    return allocated_num{out.var, out.value};
}

std::vector<std::vector<boolean>> gen_challenge_bits(cs::constraint_system& cs, const allocated_num& comm_r_new,
                                                     const allocated_num& partition, unsigned challenges,
                                                     unsigned bits_per_challenge) {
    if (bits_per_challenge == 0 || bits_per_challenge > 254)
        throw std::invalid_argument("gen_challenge_bits: " + std::to_string(bits_per_challenge) + " bits per challenge");
    const unsigned per_digest = 254 / bits_per_challenge;
    const unsigned digests = (challenges + per_digest - 1) / per_digest;
    const ff::fr_t digests_fr = ff::fr_t::from_u64(digests);
    std::vector<std::vector<boolean>> out;
    out.reserve(challenges);
    for (unsigned j = 0; j < digests; ++j) {
        cs::namespace_scope ns(cs, "digest", j);
        const ff::fr_t j_fr = ff::fr_t::from_u64(j);
        allocated_num digest_index = gadgets::alloc_num(cs, partition.value * digests_fr + j_fr);
        // partition * digests + j * ONE: the ONE term stays even for j = 0 (bellperson keeps zero terms).
        linear_combination lhs(partition.var, digests_fr);
        lhs.add_term(cs::variable::one(), j_fr);
        cs.enforce(lhs, linear_combination(cs::variable::one()), linear_combination(digest_index.var));
        allocated_num digest = gen_randomness_hash_circuit(cs, comm_r_new, digest_index);
        std::vector<boolean> bits = bits_of_num(cs, digest);
        const unsigned take = j + 1 == digests ? challenges - unsigned(out.size()) : per_digest;
        for (unsigned c = 0; c < take; ++c)
            out.emplace_back(bits.begin() + size_t(c) * bits_per_challenge,
                             bits.begin() + size_t(c + 1) * bits_per_challenge);
    }
    return out;
}

allocated_num challenge_high(cs::constraint_system& cs, std::span<const boolean> c_bits,
                             std::span<const boolean> h_select_bits, std::span<const unsigned> hs) {
    if (h_select_bits.size() != hs.size())
        throw std::invalid_argument("challenge_high: " + std::to_string(h_select_bits.size()) + " h_select bits for " +
                                    std::to_string(hs.size()) + " values of h");
    std::vector<allocated_num> scaled;
    scaled.reserve(hs.size());
    ff::fr_t selected;
    for (size_t i = 0; i < hs.size(); ++i) {
        if (hs[i] > c_bits.size())
            throw std::invalid_argument("challenge_high: h = " + std::to_string(hs[i]) + " of a " +
                                        std::to_string(c_bits.size()) + "-bit challenge");
        cs::namespace_scope ns(cs, "h", i);
        allocated_num high = gadgets::pack_bits(cs, c_bits.subspan(c_bits.size() - hs[i]));
        allocated_num high_or_zero = gadgets::alloc_num(cs, h_select_bits[i].value() ? high.value : ff::fr_t());
        cs.enforce(linear_combination(high.var), h_select_bits[i].lc(), linear_combination(high_or_zero.var));
        selected += high_or_zero.value;
        scaled.push_back(high_or_zero);
    }
    allocated_num out = gadgets::alloc_num(cs, selected);
    linear_combination sum;
    sum.reserve(scaled.size());
    for (const allocated_num& s : scaled) sum.add_term(s.var);
    cs.enforce(sum, linear_combination(cs::variable::one()), linear_combination(out.var));
    return out;
}

allocated_num encode_label(cs::constraint_system& cs, const allocated_num& label_r_old,
                           const allocated_num& label_d_new, const allocated_num& rho) {
    allocated_num product = gadgets::alloc_num(cs, label_d_new.value * rho.value);
    cs.enforce(linear_combination(label_d_new.var), linear_combination(rho.var), linear_combination(product.var));
    allocated_num label_r_new = gadgets::alloc_num(cs, label_r_old.value + product.value);
    linear_combination lhs(label_r_old.var);
    lhs.add_term(product.var);
    cs.enforce(lhs, linear_combination(cs::variable::one()), linear_combination(label_r_new.var));
    return label_r_new;
}

}  // namespace cuzk::update
