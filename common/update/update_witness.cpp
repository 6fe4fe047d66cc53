#include "common/update/update_witness.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "common/update/vanilla_shape.hpp"
#include "common/util/errors.hpp"

namespace cuzk::update {

namespace {

ff::fr_t fr_of(const domain_t& d, const std::string& where) {
    ff::fr_t out;
    if (!ff::fr_t::from_bytes_le(d.data(), out))
        throw input_error(fmt::format("{}: {} is not a canonical field element (the little-endian value is >= r)",
                                      where, c1::to_hex(d)));
    return out;
}

// The opening's levels leaf upward (base, then sub, then top), the siblings of each.
std::vector<std::vector<ff::fr_t>> siblings_of(const merkle_proof& p, const std::string& where) {
    std::vector<std::vector<ff::fr_t>> out;
    out.reserve(p.base_path.size() + p.sub_path.size() + p.top_path.size());
    for (const auto* part : {&p.base_path, &p.sub_path, &p.top_path})
        for (const c1::path_element& e : *part) {
            std::vector<ff::fr_t> level;
            level.reserve(e.hashes.size());
            for (const domain_t& h : e.hashes)
                level.push_back(fr_of(h, fmt::format("{}: level {} sibling {}", where, out.size(), level.size())));
            out.push_back(std::move(level));
        }
    return out;
}

}  // namespace

update_partition_witness partition_witness_of(const update_shape& shape, const partition_proof& proof, unsigned k,
                                              const update_commitments& pub, std::string_view source) {
    const std::string where = fmt::format("{}: partition {}", source, k);
    if (k >= shape.partition_count)
        throw input_error(fmt::format("{}: a sector of {} nodes has {} partitions (numbered from 0)", where,
                                      shape.nodes, shape.partition_count));
    try {
        (void)shape.h_select(pub.h);
    } catch (const input_error& e) {
        throw input_error(where + ": " + e.what());
    }
    // Counts, kinds, levels, sibling counts, positions and canonical values, naming challenge and opening.
    check_partition_shape(proof, update_vanilla_shape_of(shape.nodes), k, source);

    update_partition_witness w;
    w.k = k;
    w.h = pub.h;
    w.comm_r_old = pub.comm_r_old;
    w.comm_d_new = pub.comm_d_new;
    w.comm_r_new = pub.comm_r_new;
    w.comm_c = fr_of(proof.comm_c, where + ": comm_c");
    const challenge_proof& first = proof.challenge_proofs.at(0);
    w.root_r_old = fr_of(first.proof_r_old.root, where + ", challenge 0, proof_r_old: root");
    w.root_r_new = fr_of(first.proof_r_new.root, where + ", challenge 0, proof_r_new: root");
    w.apex_leaves.reserve(proof.apex_leafs.size());
    for (size_t i = 0; i < proof.apex_leafs.size(); ++i)
        w.apex_leaves.push_back(fr_of(proof.apex_leafs[i], fmt::format("{}: apex_leafs[{}]", where, i)));

    const unsigned d_levels = shape.tree_d_levels();
    const unsigned partition_level = d_levels - shape.partition_bit_len;
    const gadgets::merkle_arities tree_r = shape.tree_r_arities();
    w.challenges.reserve(proof.challenge_proofs.size());
    for (size_t c = 0; c < proof.challenge_proofs.size(); ++c) {
        const challenge_proof& cp = proof.challenge_proofs[c];
        const std::string at = fmt::format("{}, challenge {}", where, c);
        update_challenge_witness ch;
        ch.leaf_r_old = fr_of(cp.proof_r_old.leaf, at + ", proof_r_old: leaf");
        ch.leaf_d_new = fr_of(cp.proof_d_new.leaf, at + ", proof_d_new: leaf");
        ch.path_r_old = siblings_of(cp.proof_r_old, at + ", proof_r_old");
        ch.path_r_new = siblings_of(cp.proof_r_new, at + ", proof_r_new");
        // check_partition_shape held the vanilla shape to the one the circuit's shape implies; a mismatch here is
        // a disagreement between the two shape tables, not the input's fault.
        if (ch.path_r_old.size() != tree_r.levels() || ch.path_r_new.size() != tree_r.levels() ||
            cp.proof_d_new.base_path.size() != d_levels)
            throw std::logic_error(fmt::format("{}: the vanilla shape of {} nodes disagrees with the circuit's", at,
                                               shape.nodes));
        ch.path_d_new.reserve(d_levels);
        for (unsigned l = 0; l < d_levels; ++l) {
            const std::vector<domain_t>& hashes = cp.proof_d_new.base_path[l].hashes;
            // The circuit proves one partition path, challenge 0's (circuit.rs takes it from challenge_proofs[0]).
            if (l >= partition_level && hashes != first.proof_d_new.base_path[l].hashes)
                throw input_error(fmt::format("{}, proof_d_new: level {} (a partition level) has sibling {} where "
                                              "challenge 0 has {}; all challenges of a partition share its path",
                                              at, l, c1::to_hex(hashes.at(0)),
                                              c1::to_hex(first.proof_d_new.base_path[l].hashes.at(0))));
            ch.path_d_new.push_back(fr_of(hashes.at(0), fmt::format("{}, proof_d_new: level {} sibling", at, l)));
        }
        w.challenges.push_back(std::move(ch));
    }
    return w;
}

}  // namespace cuzk::update
