#include "common/post/fallback_witness.hpp"

#include <string>

#include "common/util/errors.hpp"

namespace cuzk::post {

using c1::merkle_proof_kind;

namespace {

ff::fr_t fr_of(const domain_t& d, const std::string& where) {
    ff::fr_t out;
    if (!ff::fr_t::from_bytes_le(d.data(), out))
        throw input_error(where + ": not a field element (the little-endian value is >= r)");
    return out;
}

std::string sector_name(const fallback_sector_proof& p, size_t position) {
    return "sector " + std::to_string(p.sector_id) + " (vanilla proof " + std::to_string(position) + ")";
}

merkle_proof_kind kind_of(const porep::tree_shape& t) {
    return t.top ? merkle_proof_kind::top : t.sub ? merkle_proof_kind::sub : merkle_proof_kind::single;
}

std::string_view kind_name(merkle_proof_kind k) {
    switch (k) {
        case merkle_proof_kind::single: return "Single";
        case merkle_proof_kind::sub: return "Sub";
        case merkle_proof_kind::top: return "Top";
    }
    return "?";
}

void append_levels(std::vector<merkle::path_level>& out, const std::vector<c1::path_element>& part, size_t levels,
                   unsigned arity, const std::string& where) {
    if (part.size() != levels)
        throw input_error(where + ": " + std::to_string(part.size()) + " levels, tree R has " + std::to_string(levels));
    for (size_t i = 0; i < part.size(); ++i) {
        const c1::path_element& e = part[i];
        const std::string at = where + "[" + std::to_string(i) + "]";
        if (e.hashes.size() != arity - 1 || e.index >= arity)
            throw input_error(at + ": " + std::to_string(e.hashes.size()) + " hashes and index " +
                              std::to_string(e.index) + "; a level of arity " + std::to_string(arity) + " has " +
                              std::to_string(arity - 1) + " and an index below " + std::to_string(arity));
        merkle::path_level level;
        level.index = uint32_t(e.index);
        level.siblings.reserve(e.hashes.size());
        for (size_t h = 0; h < e.hashes.size(); ++h)
            level.siblings.push_back(fr_of(e.hashes[h], at + ".hashes[" + std::to_string(h) + "]"));
        out.push_back(std::move(level));
    }
}

sector_slot slot_of(const fallback_sector_proof& p, const ff::fr_t& comm_r, const std::string& name) {
    const sector_proof& s = p.sectors[0];
    sector_slot slot;
    slot.comm_r = comm_r;
    slot.comm_c = fr_of(s.comm_c, name + ": comm_c");
    slot.comm_r_last = fr_of(s.comm_r_last, name + ": comm_r_last");
    return slot;
}

}  // namespace

std::vector<merkle::path_level> tree_r_path_of(const registered_post_proof& proof, const merkle_proof& p,
                                               const std::string& where) {
    const merkle_proof_kind want = kind_of(proof.tree);
    if (p.kind != want)
        throw input_error(where + ": a " + std::string(kind_name(p.kind)) + " Merkle proof; " +
                          std::string(proof.name) + "'s tree R takes " + std::string(kind_name(want)) + " proofs");
    std::vector<merkle::path_level> path;
    path.reserve(proof.base_tree_height() + 2);
    append_levels(path, p.base_path, proof.base_tree_height(), proof.tree.base, where + ": base path");
    append_levels(path, p.sub_path, proof.tree.sub ? 1 : 0, proof.tree.sub, where + ": sub path");
    append_levels(path, p.top_path, proof.tree.top ? 1 : 0, proof.tree.top, where + ": top path");
    return path;
}

std::vector<public_sector> public_sectors_of(std::span<const fallback_sector_proof> proofs) {
    std::vector<public_sector> out;
    out.reserve(proofs.size());
    for (size_t i = 0; i < proofs.size(); ++i)
        out.push_back({proofs[i].sector_id, fr_of(proofs[i].comm_r, sector_name(proofs[i], i) + ": comm_r")});
    return out;
}

fallback_witness witness_of(const registered_post_proof& proof, std::span<const fallback_sector_proof> proofs) {
    const std::string what(proof.name);
    if (proofs.empty()) throw input_error(what + ": no vanilla proofs");
    if (proofs.size() > proof.sector_count)
        throw input_error(what + ": " + std::to_string(proofs.size()) + " vanilla proofs; a partition proves at most " +
                          std::to_string(proof.sector_count) + " sector" + (proof.sector_count == 1 ? "" : "s"));
    for (size_t i = 1; i < proofs.size(); ++i)
        if (proofs[i].sector_id <= proofs[i - 1].sector_id)
            throw input_error(what + ": " + sector_name(proofs[i], i) + " follows sector " +
                              std::to_string(proofs[i - 1].sector_id) +
                              "; sectors are proved in ascending, unique order (as verifiers order them)");
    const std::vector<public_sector> pub = public_sectors_of(proofs);
    for (size_t i = 0; i < proofs.size(); ++i) {
        const std::string name = sector_name(proofs[i], i);
        if (proofs[i].sectors.size() != 1)
            throw input_error(what + ": " + name + ": " + std::to_string(proofs[i].sectors.size()) +
                              " sector proofs; a fallback PoSt vanilla proof holds 1");
        if (proofs[i].sectors[0].inclusion_proofs.size() != proof.challenge_count)
            throw input_error(what + ": " + name + ": " + std::to_string(proofs[i].sectors[0].inclusion_proofs.size()) +
                              " inclusion proofs; " + what + " challenges " + std::to_string(proof.challenge_count) +
                              " leaves per sector");
    }

    const fallback_circuit_shape shape = fallback_circuit_shape::of(proof);
    fallback_witness w;
    w.sectors.reserve(shape.sectors);
    auto opening = [&](const merkle_proof& m, const std::string& where) {
        challenge_opening c;
        c.leaf = fr_of(m.leaf, where + ": leaf");
        c.path = tree_r_path_of(proof, m, where);
        return c;
    };
    if (proof.kind == post_kind::winning) {
        const std::string name = what + ": " + sector_name(proofs[0], 0);
        const sector_proof& s = proofs[0].sectors[0];
        const sector_slot common = slot_of(proofs[0], pub[0].comm_r, name);
        for (size_t n = 0; n < s.inclusion_proofs.size(); ++n) {
            sector_slot slot = common;
            slot.challenges.push_back(opening(s.inclusion_proofs[n], name + ": inclusion proof " + std::to_string(n)));
            w.sectors.push_back(std::move(slot));
        }
    } else {
        for (size_t i = 0; i < proofs.size(); ++i) {
            const std::string name = what + ": " + sector_name(proofs[i], i);
            sector_slot slot = slot_of(proofs[i], pub[i].comm_r, name);
            const sector_proof& s = proofs[i].sectors[0];
            slot.challenges.reserve(s.inclusion_proofs.size());
            for (size_t n = 0; n < s.inclusion_proofs.size(); ++n)
                slot.challenges.push_back(opening(s.inclusion_proofs[n], name + ": inclusion proof " + std::to_string(n)));
            w.sectors.push_back(std::move(slot));
        }
        while (w.sectors.size() < shape.sectors) w.sectors.push_back(w.sectors.back());
    }
    return w;
}

}  // namespace cuzk::post
