#include "common/update/vanilla_shape.hpp"

#include <fmt/format.h>

#include <bit>
#include <string>

#include "common/bincode/merkle_proof_check.hpp"
#include "common/update/update_shape.hpp"
#include "common/util/errors.hpp"

namespace cuzk::update {

namespace {

class shape_checker {
public:
    shape_checker(const update_vanilla_shape& shape, std::string_view source, uint64_t partition)
        : shape_(shape), where_(fmt::format("{}: partition {}", source, partition)) {}

    void check(const partition_proof& p) {
        domain(p.comm_c, "comm_c");
        if (p.apex_leafs.size() != shape_.apex_leaves)
            fail(fmt::format("{} apex leaves, expected {}", p.apex_leafs.size(), shape_.apex_leaves));
        for (size_t i = 0; i < p.apex_leafs.size(); ++i) domain(p.apex_leafs[i], fmt::format("apex_leafs[{}]", i));
        if (p.challenge_proofs.size() != shape_.challenges)
            fail(fmt::format("{} challenge proofs, expected {}", p.challenge_proofs.size(), shape_.challenges));
        const std::string partition_where = where_;
        for (size_t c = 0; c < p.challenge_proofs.size(); ++c) {
            const challenge_proof& cp = p.challenge_proofs[c];
            where_ = fmt::format("{}, challenge {}, proof_r_old", partition_where, c);
            opening(cp.proof_r_old, shape_.tree_r, "tree R");
            where_ = fmt::format("{}, challenge {}, proof_d_new", partition_where, c);
            opening(cp.proof_d_new, shape_.tree_d, "tree D");
            where_ = fmt::format("{}, challenge {}, proof_r_new", partition_where, c);
            opening(cp.proof_r_new, shape_.tree_r, "tree R");
        }
        where_ = partition_where;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw input_error(where_ + ": " + what); }

    void domain(const domain_t& d, std::string_view field) const {
        if (std::string why = bincode::non_canonical(d, field); !why.empty()) fail(why);
    }

    void opening(const merkle_proof& p, const bincode::merkle_shape& tree, std::string_view tree_name) const {
        if (std::string why = bincode::merkle_proof_mismatch(p, tree, tree_name); !why.empty()) fail(why);
    }

    const update_vanilla_shape& shape_;
    std::string where_;
};

}  // namespace

uint64_t update_vanilla_shape::challenge_proof_bytes() const {
    return 2 * tree_r.proof_bytes() + tree_d.proof_bytes();
}

uint64_t update_vanilla_shape::partition_proof_bytes() const {
    // comm_c, apex_leafs (length, values), challenge_proofs (length, values)
    return 32 + 8 + uint64_t(apex_leaves) * 32 + 8 + challenges * challenge_proof_bytes();
}

update_vanilla_shape update_vanilla_shape_of(uint64_t sector_nodes) {
    // The sizes and constants are update_shape's (one table of them); an unknown size throws there.
    const update_shape u = update_shape_of(sector_nodes);
    update_vanilla_shape s;
    s.sector_nodes = sector_nodes;
    s.challenge_bit_len = u.challenge_bit_len;
    s.partitions = u.partition_count;
    s.partition_bit_len = u.partition_bit_len;
    s.challenges = u.challenge_count;
    s.apex_leaves = u.apex_leaf_count;
    s.apex_leaf_bit_len = u.apex_leaf_bit_len;
    s.tree_d = {2, s.challenge_bit_len, 0, 0};
    const gadgets::merkle_arities r = u.tree_r_arities();
    s.tree_r = {r.base, r.base_levels, r.sub, r.top};
    return s;
}

void check_partition_shape(const partition_proof& proof, const update_vanilla_shape& shape, uint64_t partition,
                           std::string_view source) {
    shape_checker(shape, source, partition).check(proof);
}

}  // namespace cuzk::update
