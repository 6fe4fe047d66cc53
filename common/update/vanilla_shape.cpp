#include "common/update/vanilla_shape.hpp"

#include <fmt/format.h>

#include <bit>
#include <string>

#include "common/ff/bls12_381.hpp"
#include "common/util/errors.hpp"

namespace cuzk::update {

namespace {

// storage-proofs-update constants.rs: ALLOWED_SECTOR_SIZES and the tree R arities tree_shape_is_valid accepts
// for each (the published sizes' are those of the seal proofs of that size, filecoin-proofs constants.rs).
struct allowed_size {
    uint64_t nodes;
    unsigned base, sub, top;
};
constexpr allowed_size allowed_sizes[] = {
    {uint64_t(1) << 5, 8, 4, 0},   // 1 KiB (test)
    {uint64_t(1) << 6, 8, 0, 0},   // 2 KiB
    {uint64_t(1) << 7, 8, 2, 0},   // 4 KiB (test)
    {uint64_t(1) << 8, 8, 4, 0},   // 8 KiB (test)
    {uint64_t(1) << 9, 8, 8, 0},   // 16 KiB (test)
    {uint64_t(1) << 10, 8, 8, 2},  // 32 KiB (test)
    {uint64_t(1) << 18, 8, 0, 0},  // 8 MiB
    {uint64_t(1) << 19, 8, 2, 0},  // 16 MiB (test)
    {uint64_t(1) << 24, 8, 0, 0},  // 512 MiB
    {uint64_t(1) << 30, 8, 8, 0},  // 32 GiB
    {uint64_t(1) << 31, 8, 8, 2},  // 64 GiB
};

std::string allowed_list() {
    std::string s;
    for (const allowed_size& a : allowed_sizes) s += fmt::format("{}{}", s.empty() ? "" : ", ", a.nodes);
    return s;
}

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
            opening(cp.proof_r_old, shape_.tree_r);
            where_ = fmt::format("{}, challenge {}, proof_d_new", partition_where, c);
            opening(cp.proof_d_new, shape_.tree_d);
            where_ = fmt::format("{}, challenge {}, proof_r_new", partition_where, c);
            opening(cp.proof_r_new, shape_.tree_r);
        }
        where_ = partition_where;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw input_error(where_ + ": " + what); }

    void domain(const domain_t& d, std::string_view field) const {
        ff::fr_t unused;
        if (!ff::fr_t::from_bytes_le(d.data(), unused))
            fail(fmt::format("{} {} is not a canonical field element (the little-endian value is >= r)", field,
                             c1::to_hex(d)));
    }

    void opening(const merkle_proof& p, const bincode::merkle_shape& tree) {
        if (p.kind != tree.kind())
            fail(fmt::format("a {} proof, expected {}", bincode::kind_name(p.kind), bincode::kind_name(tree.kind())));
        path(p.base_path, "base path", tree.base_arity, tree.base_levels);
        path(p.sub_path, "sub path", tree.sub_arity, tree.sub_arity ? 1 : 0);
        path(p.top_path, "top path", tree.top_arity, tree.top_arity ? 1 : 0);
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
    for (const allowed_size& a : allowed_sizes) {
        if (a.nodes != sector_nodes) continue;
        update_vanilla_shape s;
        s.sector_nodes = sector_nodes;
        s.challenge_bit_len = unsigned(std::countr_zero(sector_nodes));
        s.partitions = sector_nodes <= (1u << 8)    ? 1
                       : sector_nodes <= (1u << 10) ? 2
                       : sector_nodes <= (1u << 19) ? 4
                                                    : 16;
        s.partition_bit_len = unsigned(std::countr_zero(s.partitions));
        s.challenges = sector_nodes <= (1u << 19) ? 10 : 86;
        s.apex_leaves = sector_nodes <= (1u << 8) ? 8 : 128;
        s.apex_leaf_bit_len = unsigned(std::countr_zero(s.apex_leaves));
        s.tree_d = {2, s.challenge_bit_len, 0, 0};
        // Base trees are 8-ary: log8 of the leaves under one base tree.
        const uint64_t base_leaves = sector_nodes / (a.sub ? a.sub : 1) / (a.top ? a.top : 1);
        const unsigned base_levels = unsigned(std::countr_zero(base_leaves)) / 3;
        s.tree_r = {a.base, base_levels, a.sub, a.top};
        return s;
    }
    throw input_error(
        fmt::format("a SnapDeals sector of {} nodes ({} bytes): no such sector size; the sizes in nodes are {}",
                    sector_nodes, sector_nodes * 32, allowed_list()));
}

void check_partition_shape(const partition_proof& proof, const update_vanilla_shape& shape, uint64_t partition,
                           std::string_view source) {
    shape_checker(shape, source, partition).check(proof);
}

}  // namespace cuzk::update
