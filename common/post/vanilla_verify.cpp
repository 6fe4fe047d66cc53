#include "common/post/vanilla_verify.hpp"

#include <fmt/format.h>

#include <vector>

#include "common/merkle/merkle_tree.hpp"
#include "common/poseidon/poseidon.hpp"
#include "common/util/errors.hpp"

namespace cuzk::post {

namespace {

// check_shape has refused non-canonical values, so the conversion cannot fail here.
ff::fr_t fr_of(const c1::domain_t& d) {
    ff::fr_t out;
    ff::fr_t::from_bytes_le(d.data(), out);
    return out;
}

std::vector<merkle::path_level> levels_of(const c1::merkle_proof& p) {
    std::vector<merkle::path_level> out;
    for (const auto* part : {&p.base_path, &p.sub_path, &p.top_path})
        for (const c1::path_element& e : *part) {
            merkle::path_level level;
            level.siblings.reserve(e.hashes.size());
            for (const c1::domain_t& h : e.hashes) level.siblings.push_back(fr_of(h));
            level.index = uint32_t(e.index);
            out.push_back(std::move(level));
        }
    return out;
}

}  // namespace

void verify_sector_proof(const fallback_sector_proof& proof, const vanilla_shape& shape,
                         std::span<const uint64_t> challenged_leaves, std::string_view source) {
    check_shape(proof, shape, source);
    const std::string sector = fmt::format("{}: sector {}", source, proof.sector_id);
    const sector_proof& s = proof.sectors[0];
    if (challenged_leaves.size() != s.inclusion_proofs.size())
        throw input_error(fmt::format("{}: {} inclusion proofs for {} challenges", sector, s.inclusion_proofs.size(),
                                      challenged_leaves.size()));
    const ff::fr_t comm_r_last = fr_of(s.comm_r_last);
    if (poseidon::hash2(fr_of(s.comm_c), comm_r_last) != fr_of(proof.comm_r))
        throw input_error(fmt::format("{}: comm_r {} is not Poseidon(comm_c {}, comm_r_last {})", sector,
                                      c1::to_hex(proof.comm_r), c1::to_hex(s.comm_c), c1::to_hex(s.comm_r_last)));
    for (size_t n = 0; n < s.inclusion_proofs.size(); ++n) {
        const c1::merkle_proof& p = s.inclusion_proofs[n];
        const std::string where = fmt::format("{}, inclusion proof {} (challenged leaf {})", sector, n,
                                              challenged_leaves[n]);
        if (p.root != s.comm_r_last)
            throw input_error(fmt::format("{}: its root {} is not comm_r_last {}", where, c1::to_hex(p.root),
                                          c1::to_hex(s.comm_r_last)));
        if (p.leaf_index() != challenged_leaves[n])
            throw input_error(fmt::format("{}: it opens leaf {}", where, p.leaf_index()));
        const auto levels = levels_of(p);
        if (merkle::root_from_proof(merkle::hasher::poseidon, fr_of(p.leaf), levels) != comm_r_last)
            throw input_error(
                fmt::format("{}: the path from leaf {} does not hash to comm_r_last", where, c1::to_hex(p.leaf)));
    }
}

}  // namespace cuzk::post
