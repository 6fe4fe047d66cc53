#include "common/bincode/merkle_proof_check.hpp"

#include <fmt/format.h>

#include <vector>

#include "common/ff/bls12_381.hpp"

namespace cuzk::bincode {

namespace {

std::string path_mismatch(const std::vector<c1::path_element>& path, std::string_view part, unsigned arity,
                          unsigned levels) {
    if (path.size() != levels) return fmt::format("{} of {} levels, expected {}", part, path.size(), levels);
    for (size_t l = 0; l < path.size(); ++l) {
        const c1::path_element& e = path[l];
        if (e.hashes.size() != arity - 1)
            return fmt::format("{} level {}: {} siblings, expected {} (arity {})", part, l, e.hashes.size(),
                               arity - 1, arity);
        if (e.index >= arity)
            return fmt::format("{} level {}: index {} is not below the arity {}", part, l, e.index, arity);
        for (size_t h = 0; h < e.hashes.size(); ++h) {
            std::string why = non_canonical(e.hashes[h], fmt::format("{} level {} hashes[{}]", part, l, h));
            if (!why.empty()) return why;
        }
    }
    return {};
}

}  // namespace

std::string non_canonical(const c1::domain_t& d, std::string_view field) {
    ff::fr_t unused;
    if (ff::fr_t::from_bytes_le(d.data(), unused)) return {};
    return fmt::format("{} {} is not a canonical field element (the little-endian value is >= r)", field,
                       c1::to_hex(d));
}

std::string merkle_proof_mismatch(const c1::merkle_proof& p, const merkle_shape& tree, std::string_view tree_name) {
    if (p.kind != tree.kind())
        return fmt::format("a {} proof, expected {} for {}", kind_name(p.kind), kind_name(tree.kind()), tree_name);
    std::string why = path_mismatch(p.base_path, "base path", tree.base_arity, tree.base_levels);
    if (why.empty()) why = path_mismatch(p.sub_path, "sub path", tree.sub_arity, tree.sub_arity ? 1 : 0);
    if (why.empty()) why = path_mismatch(p.top_path, "top path", tree.top_arity, tree.top_arity ? 1 : 0);
    if (why.empty()) why = non_canonical(p.root, "root");
    if (why.empty()) why = non_canonical(p.leaf, "leaf");
    return why;
}

}  // namespace cuzk::bincode
