#include "common/update/update_shape.hpp"

#include <bit>

#include "common/util/errors.hpp"

namespace cuzk::update {

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// Tree R of each allowed size (constants.rs validate_tree_r_shape). The test sizes vary the sub and top
// arities on purpose, so that the small circuits exercise every path shape the real ones have.
bool tree_r_of(uint64_t nodes, porep::tree_shape& out) {
    switch (std::countr_zero(nodes)) {
        case 5: out = {8, 4, 0}; return true;    // 1 KiB
        case 6: out = {8, 0, 0}; return true;    // 2 KiB
        case 7: out = {8, 2, 0}; return true;    // 4 KiB
        case 8: out = {8, 4, 0}; return true;    // 8 KiB
        case 9: out = {8, 8, 0}; return true;    // 16 KiB
        case 10: out = {8, 8, 2}; return true;   // 32 KiB
        case 18: out = {8, 0, 0}; return true;   // 8 MiB
        case 19: out = {8, 2, 0}; return true;   // 16 MiB
        case 24: out = {8, 0, 0}; return true;   // 512 MiB
        case 30: out = {8, 8, 0}; return true;   // 32 GiB
        case 31: out = {8, 8, 2}; return true;   // 64 GiB
        default: return false;
    }
}

constexpr registered_update_proof table[] = {
    {"StackedDrgUpdate2KiBV1", "RegisteredUpdateProof_StackedDrg2KiBV1", 0, 2 * KiB},
    {"StackedDrgUpdate8MiBV1", "RegisteredUpdateProof_StackedDrg8MiBV1", 1, 8 * MiB},
    {"StackedDrgUpdate512MiBV1", "RegisteredUpdateProof_StackedDrg512MiBV1", 2, 512 * MiB},
    {"StackedDrgUpdate32GiBV1", "RegisteredUpdateProof_StackedDrg32GiBV1", 3, 32 * GiB},
    {"StackedDrgUpdate64GiBV1", "RegisteredUpdateProof_StackedDrg64GiBV1", 4, 64 * GiB},
};

}  // namespace

unsigned update_shape::h_select(unsigned h) const {
    for (unsigned i = 0; i < H_SELECT_BITS; ++i)
        if (hs[i] == h) return 1u << i;
    std::string allowed;
    for (unsigned v : hs) allowed += (allowed.empty() ? "" : ", ") + std::to_string(v);
    throw input_error("h = " + std::to_string(h) + " is not allowed for a sector of " + std::to_string(nodes) +
                      " nodes (allowed: " + allowed + ")");
}

unsigned update_shape::digests_per_partition() const {
    const unsigned per = challenges_per_digest();
    return (challenge_count + per - 1) / per;
}

gadgets::merkle_arities update_shape::tree_r_arities() const {
    unsigned bits = challenge_bit_len;
    if (tree_r.sub) bits -= unsigned(std::countr_zero(tree_r.sub));
    if (tree_r.top) bits -= unsigned(std::countr_zero(tree_r.top));
    return gadgets::merkle_arities{tree_r.base, bits / unsigned(std::countr_zero(tree_r.base)), tree_r.sub,
                                   tree_r.top};
}

update_shape update_shape_of(uint64_t nodes) {
    update_shape s;
    if (!std::has_single_bit(nodes) || !tree_r_of(nodes, s.tree_r))
        throw input_error("no SnapDeals (EmptySectorUpdate) circuit for a sector of " + std::to_string(nodes) +
                          " nodes (" + std::to_string(nodes * 32) +
                          " bytes): no such sector size; sizes: 1, 2, 4, 8, 16, 32 KiB (tests), 2 KiB, 8 MiB, "
                          "16 MiB (test), 512 MiB, 32 GiB, 64 GiB");
    s.nodes = nodes;
    s.challenge_bit_len = unsigned(std::countr_zero(nodes));
    s.partition_count = nodes <= (1u << 8) ? 1 : nodes <= (1u << 10) ? 2 : nodes <= (1u << 19) ? 4 : 16;
    s.partition_bit_len = unsigned(std::countr_zero(s.partition_count));
    s.challenge_count = nodes <= (1u << 19) ? 10 : 86;
    if (nodes <= (1u << 10))
        s.hs = {1, 1, 1, 1, 1, 1};
    else
        s.hs = {7, 8, 9, 10, 11, 12};
    s.apex_leaf_count = nodes <= (1u << 8) ? 8 : 128;
    s.apex_leaf_bit_len = unsigned(std::countr_zero(s.apex_leaf_count));
    return s;
}

std::span<const registered_update_proof> all_registered_update_proofs() { return table; }

std::string registered_update_proof_names() {
    std::string out;
    for (const registered_update_proof& p : table) {
        if (!out.empty()) out += ", ";
        out += p.name;
    }
    return out;
}

const registered_update_proof* find_registered_update_proof(std::string_view name) {
    for (const registered_update_proof& p : table)
        if (p.name == name || p.abi_name == name) return &p;
    return nullptr;
}

const registered_update_proof& registered_update_proof_by_name(std::string_view name) {
    if (const registered_update_proof* p = find_registered_update_proof(name)) return *p;
    throw input_error("unknown registered update proof '" + std::string(name) + "'; valid: " +
                      registered_update_proof_names() + " (or Go's RegisteredUpdateProof_StackedDrg*V1)");
}

const registered_update_proof& registered_update_proof_by_id(uint64_t id) {
    for (const registered_update_proof& p : table)
        if (p.id == id) return p;
    throw input_error("unknown registered update proof id " + std::to_string(id) + "; valid: 0..4 (" +
                      registered_update_proof_names() + ")");
}

}  // namespace cuzk::update
