#include "common/post/vanilla_shape.hpp"

#include <fmt/format.h>

#include "common/ff/bls12_381.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/util/errors.hpp"

namespace cuzk::post {

namespace {

// bincode: a Vec's u64 length, the siblings, the usize position.
uint64_t path_element_bytes(unsigned arity) { return 8 + uint64_t(arity - 1) * 32 + 8; }
uint64_t inclusion_path_bytes(unsigned arity, unsigned levels) { return 8 + levels * path_element_bytes(arity); }

const char* kind_name(c1::merkle_proof_kind k) {
    switch (k) {
        case c1::merkle_proof_kind::single: return "Single";
        case c1::merkle_proof_kind::sub: return "Sub";
        case c1::merkle_proof_kind::top: return "Top";
    }
    return "?";
}

class shape_checker {
public:
    shape_checker(const vanilla_shape& shape, std::string_view source) : shape_(shape), source_(source) {}

    void check(const fallback_sector_proof& p) {
        where_ = fmt::format("{}: sector {}", source_, p.sector_id);
        domain(p.comm_r, "comm_r");
        if (p.sectors.size() != 1)
            fail(fmt::format("vanilla_proof.sectors holds {} entries, expected 1", p.sectors.size()));
        const sector_proof& s = p.sectors[0];
        if (s.inclusion_proofs.size() != shape_.challenges)
            fail(fmt::format("{} inclusion proofs, expected {}", s.inclusion_proofs.size(), shape_.challenges));
        const std::string sector_where = where_;
        for (size_t n = 0; n < s.inclusion_proofs.size(); ++n) {
            where_ = fmt::format("{}, inclusion proof {}", sector_where, n);
            inclusion(s.inclusion_proofs[n]);
        }
        where_ = sector_where;
        domain(s.comm_c, "comm_c");
        domain(s.comm_r_last, "comm_r_last");
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw input_error(where_ + ": " + what); }

    void domain(const c1::domain_t& d, std::string_view field) const {
        ff::fr_t unused;
        if (!ff::fr_t::from_bytes_le(d.data(), unused))
            fail(fmt::format("{} {} is not a canonical field element (the little-endian value is >= r)", field,
                             c1::to_hex(d)));
    }

    void inclusion(const c1::merkle_proof& p) {
        if (p.kind != shape_.kind())
            fail(fmt::format("a {} proof, expected {} for this sector size's tree R", kind_name(p.kind),
                             kind_name(shape_.kind())));
        path(p.base_path, "base path", shape_.base_arity, shape_.base_levels);
        path(p.sub_path, "sub path", shape_.sub_arity, shape_.sub_arity ? 1 : 0);
        path(p.top_path, "top path", shape_.top_arity, shape_.top_arity ? 1 : 0);
        domain(p.root, "root");
        domain(p.leaf, "leaf");
    }

    void path(const std::vector<c1::path_element>& path, std::string_view part, unsigned arity, unsigned levels) {
        if (path.size() != levels) fail(fmt::format("{} of {} levels, expected {}", part, path.size(), levels));
        for (size_t l = 0; l < path.size(); ++l) {
            const c1::path_element& e = path[l];
            if (e.hashes.size() != arity - 1)
                fail(fmt::format("{} level {}: {} siblings, expected {} (arity {})", part, l, e.hashes.size(),
                                 arity - 1, arity));
            if (e.index >= arity)
                fail(fmt::format("{} level {}: index {} is not below the arity {}", part, l, e.index, arity));
            for (size_t h = 0; h < e.hashes.size(); ++h)
                domain(e.hashes[h], fmt::format("{} level {} hashes[{}]", part, l, h));
        }
    }

    const vanilla_shape& shape_;
    std::string_view source_;
    std::string where_;
};

}  // namespace

c1::merkle_proof_kind vanilla_shape::kind() const {
    return top_arity ? c1::merkle_proof_kind::top
           : sub_arity ? c1::merkle_proof_kind::sub
                       : c1::merkle_proof_kind::single;
}

uint64_t vanilla_shape::inclusion_proof_bytes() const {
    uint64_t bytes = 4 + 32 + 32 + inclusion_path_bytes(base_arity, base_levels);  // tag, root, leaf, base path
    if (sub_arity) bytes += inclusion_path_bytes(sub_arity, 1);
    if (top_arity) bytes += inclusion_path_bytes(top_arity, 1);
    return bytes;
}

uint64_t vanilla_shape::sector_proof_bytes() const {
    // sector_id, comm_r, sectors length, inclusion_proofs length, the proofs, comm_c, comm_r_last
    return 8 + 32 + 8 + 8 + challenges * inclusion_proof_bytes() + 32 + 32;
}

vanilla_shape vanilla_shape_of(uint64_t sector_size, unsigned challenges) {
    for (const porep::registered_proof& p : porep::all_registered_proofs()) {
        if (p.sector_size != sector_size) continue;
        vanilla_shape s;
        s.leaves = p.nodes;
        s.base_arity = p.tree.base;
        s.sub_arity = p.tree.sub;
        s.top_arity = p.tree.top;
        s.base_levels = p.base_tree_height();
        s.challenges = challenges;
        return s;
    }
    throw input_error(fmt::format("no registered proof has sectors of {} bytes", sector_size));
}

void check_shape(const fallback_sector_proof& proof, const vanilla_shape& shape, std::string_view source) {
    shape_checker(shape, source).check(proof);
}

}  // namespace cuzk::post
