#include "common/post/vanilla_shape.hpp"

#include <fmt/format.h>

#include "common/bincode/merkle_proof_check.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/util/errors.hpp"

namespace cuzk::post {

namespace {

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
        if (std::string why = bincode::non_canonical(d, field); !why.empty()) fail(why);
    }

    void inclusion(const c1::merkle_proof& p) const {
        std::string why = bincode::merkle_proof_mismatch(p, shape_.tree_r(), "this sector size's tree R");
        if (!why.empty()) fail(why);
    }

    const vanilla_shape& shape_;
    std::string_view source_;
    std::string where_;
};

}  // namespace

bincode::merkle_shape vanilla_shape::tree_r() const { return {base_arity, base_levels, sub_arity, top_arity}; }

c1::merkle_proof_kind vanilla_shape::kind() const { return tree_r().kind(); }

uint64_t vanilla_shape::inclusion_proof_bytes() const { return tree_r().proof_bytes(); }

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
