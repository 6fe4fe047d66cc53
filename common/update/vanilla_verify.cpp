#include "common/update/vanilla_verify.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "common/merkle/merkle_tree.hpp"
#include "common/util/errors.hpp"

namespace cuzk::update {

namespace {

using c1::to_hex;

// check_partition_shape has refused non-canonical values, so the conversion cannot fail here.
ff::fr_t fr_of(const domain_t& d) {
    ff::fr_t out;
    ff::fr_t::from_bytes_le(d.data(), out);
    return out;
}

domain_t bytes_of(const ff::fr_t& x) {
    domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

std::vector<merkle::path_level> levels_of(const merkle_proof& p) {
    std::vector<merkle::path_level> out;
    for (const auto* part : {&p.base_path, &p.sub_path, &p.top_path})
        for (const c1::path_element& e : *part) {
            merkle::path_level level;
            level.siblings.reserve(e.hashes.size());
            for (const domain_t& h : e.hashes) level.siblings.push_back(fr_of(h));
            level.index = uint32_t(e.index);
            out.push_back(std::move(level));
        }
    return out;
}

class partition_verifier {
public:
    partition_verifier(const partition_proof& p, const update_vanilla_shape& shape, uint64_t partition,
                       std::string_view source)
        : p_(p), shape_(shape), k_(partition), where_(fmt::format("{}: partition {}", source, partition)) {}

    update_roots run() {
        const challenge_proof& first = p_.challenge_proofs[0];
        roots_ = {p_.comm_c, first.proof_r_old.root, first.proof_r_new.root, first.proof_d_new.root};
        // Positions first: a partition proof in another partition's place is named as such, not as the hash
        // mismatches it causes.
        for (size_t c = 0; c < p_.challenge_proofs.size(); ++c) check_node(c, p_.challenge_proofs[c]);
        check_apex_tree(first.proof_d_new);
        for (size_t c = 0; c < p_.challenge_proofs.size(); ++c) check_openings(c, p_.challenge_proofs[c]);
        return roots_;
    }

private:
    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw input_error(where + ": " + what);
    }

    // The circuit hashes the apex leaves into the apex root and walks challenge 0's partition levels from it,
    // with the partition's bits as positions, to comm_d_new.
    void check_apex_tree(const merkle_proof& d0) const {
        std::vector<ff::fr_t> row;
        for (const domain_t& leaf : p_.apex_leafs) row.push_back(fr_of(leaf));
        while (row.size() > 1) {
            std::vector<ff::fr_t> up(row.size() / 2);
            for (size_t i = 0; i < up.size(); ++i) up[i] = merkle::sha256_node(std::span(row).subspan(2 * i, 2));
            row = std::move(up);
        }
        const auto levels = levels_of(d0);
        std::vector<merkle::path_level> partition_path(levels.begin() + partition_level(), levels.end());
        for (unsigned l = 0; l < partition_path.size(); ++l) partition_path[l].index = uint32_t(k_ >> l & 1);
        const ff::fr_t root = merkle::root_from_proof(merkle::hasher::sha256, row[0], partition_path);
        if (root != fr_of(roots_.comm_d_new))
            fail(where_, fmt::format("the apex tree of its {} apex leaves, up challenge 0's partition path, gives {}, "
                                     "not comm_d_new {} (challenge 0's proof_d_new root)",
                                     p_.apex_leafs.size(), to_hex(bytes_of(root)), to_hex(roots_.comm_d_new)));
    }

    unsigned partition_level() const { return shape_.challenge_bit_len - shape_.partition_bit_len; }

    void check_node(size_t c, const challenge_proof& cp) const {
        const std::string where = fmt::format("{}, challenge {}", where_, c);
        const uint64_t node = cp.proof_d_new.leaf_index();
        if (cp.proof_r_old.leaf_index() != node || cp.proof_r_new.leaf_index() != node)
            fail(where, fmt::format("proof_r_old opens node {}, proof_d_new node {}, proof_r_new node {}; the three "
                                    "open the challenged node",
                                    cp.proof_r_old.leaf_index(), node, cp.proof_r_new.leaf_index()));
        // Positions are below 2^challenge_bit_len (the shape check saw every level's), so the shift is in range.
        if ((node >> partition_level()) != k_)
            fail(where, fmt::format("node {} lies in partition {}; partition {}'s challenges lie in its 1/{} of the "
                                    "sector",
                                    node, node >> partition_level(), k_, shape_.partitions));
    }

    void check_openings(size_t c, const challenge_proof& cp) const {
        const std::string where = fmt::format("{}, challenge {}", where_, c);
        tree_r(where + ", proof_r_old", cp.proof_r_old, roots_.root_r_old, "root_r_old");
        tree_r(where + ", proof_r_new", cp.proof_r_new, roots_.root_r_new, "root_r_new");
        tree_d(where + ", proof_d_new", cp.proof_d_new, cp.proof_d_new.leaf_index());
    }

    void same_root(const std::string& where, const merkle_proof& p, const domain_t& root, std::string_view name) const {
        if (p.root != root)
            fail(where, fmt::format("its root {} is not {} {} (challenge 0's)", to_hex(p.root), name, to_hex(root)));
    }

    void tree_r(const std::string& where, const merkle_proof& p, const domain_t& root, std::string_view name) const {
        same_root(where, p, root, name);
        if (merkle::root_from_proof(merkle::hasher::poseidon, fr_of(p.leaf), levels_of(p)) != fr_of(p.root))
            fail(where, fmt::format("the path from leaf {} does not hash to its root {}", to_hex(p.leaf),
                                    to_hex(p.root)));
    }

    void tree_d(const std::string& where, const merkle_proof& p, uint64_t node) const {
        same_root(where, p, roots_.comm_d_new, "comm_d_new");
        const std::vector<c1::path_element>& path = p.base_path;
        const std::vector<c1::path_element>& first = p_.challenge_proofs[0].proof_d_new.base_path;
        for (unsigned l = partition_level(); l < path.size(); ++l)
            if (path[l].hashes != first[l].hashes)
                fail(where, fmt::format("level {} (a partition level) has sibling {} where challenge 0 has {}; one "
                                        "partition path serves all challenges",
                                        l, to_hex(path[l].hashes[0]), to_hex(first[l].hashes[0])));
        const auto levels = levels_of(p);
        const unsigned height = shape_.apex_leaf_height();
        const std::span<const merkle::path_level> below(levels.data(), height);
        const ff::fr_t apex_node = merkle::root_from_proof(merkle::hasher::sha256, fr_of(p.leaf), below);
        const uint64_t apex_index = (node >> height) & (shape_.apex_leaves - 1);
        if (apex_node != fr_of(p_.apex_leafs[apex_index]))
            fail(where, fmt::format("the path from leaf {} reaches {} at level {}, not apex_leafs[{}] {}",
                                    to_hex(p.leaf), to_hex(bytes_of(apex_node)), height, apex_index,
                                    to_hex(p_.apex_leafs[apex_index])));
        const std::span<const merkle::path_level> above(levels.data() + height, levels.size() - height);
        if (merkle::root_from_proof(merkle::hasher::sha256, apex_node, above) != fr_of(p.root))
            fail(where, fmt::format("the path from leaf {} does not hash to its root {}", to_hex(p.leaf),
                                    to_hex(p.root)));
    }

    const partition_proof& p_;
    const update_vanilla_shape& shape_;
    uint64_t k_;
    std::string where_;
    update_roots roots_;
};

}  // namespace

update_roots verify_partition_proof(const partition_proof& proof, const update_vanilla_shape& shape,
                                    uint64_t partition, std::string_view source) {
    check_partition_shape(proof, shape, partition, source);
    if (partition >= shape.partitions)
        throw input_error(fmt::format("{}: partition {}: a sector of {} nodes has {} partitions", source, partition,
                                      shape.sector_nodes, shape.partitions));
    return partition_verifier(proof, shape, partition, source).run();
}

update_roots verify_update_proofs(std::span<const partition_proof> partitions, const update_vanilla_shape& shape,
                                  std::string_view source) {
    if (partitions.size() != shape.partitions)
        throw input_error(fmt::format("{}s: {} partition proofs; a sector of {} nodes has {} partitions", source,
                                      partitions.size(), shape.sector_nodes, shape.partitions));
    const update_roots first = verify_partition_proof(partitions[0], shape, 0, source);
    for (size_t k = 1; k < partitions.size(); ++k) {
        const update_roots r = verify_partition_proof(partitions[k], shape, k, source);
        const auto differ = [&](std::string_view name, const domain_t& mine, const domain_t& zeroth) {
            if (mine != zeroth)
                throw input_error(fmt::format("{}: partition {}: {} {} differs from partition 0's {}; the partitions "
                                              "of one update share it",
                                              source, k, name, to_hex(mine), to_hex(zeroth)));
        };
        differ("comm_c", r.comm_c, first.comm_c);
        differ("root_r_old", r.root_r_old, first.root_r_old);
        differ("root_r_new", r.root_r_new, first.root_r_new);
        differ("comm_d_new", r.comm_d_new, first.comm_d_new);
    }
    return first;
}

}  // namespace cuzk::update
