#include "common/porep/registered_proof.hpp"

#include <bit>
#include <string>

#include "common/util/errors.hpp"

namespace cuzk::porep {

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

// filecoin-proofs parameters.rs select_challenges: the fewest per partition reaching the minimum.
constexpr unsigned per_partition(unsigned minimum, unsigned partitions) {
    return (minimum + partitions - 1) / partitions;
}

constexpr registered_proof make(std::string_view name, uint64_t id, graph::api_version v, uint64_t size,
                                unsigned layers, unsigned partitions, unsigned minimum, tree_shape tree,
                                bool synthetic = false) {
    return registered_proof{name, id, v, size, size / 32, layers, partitions, per_partition(minimum, partitions),
                            minimum, tree, 6, 8, synthetic};
}

using graph::api_version;
// Test sizes: 2 layers, 1 partition, 2 challenges, base-8 trees. Production sizes: 11 layers, 10
// partitions, 176 challenges (18 per partition), oct-trees with a sub level (and a binary top at 64 GiB).
constexpr registered_proof table[] = {
    make("StackedDrg2KiBV1", 0, api_version::v1_0, 2 * KiB, 2, 1, 2, {8, 0, 0}),
    make("StackedDrg8MiBV1", 1, api_version::v1_0, 8 * MiB, 2, 1, 2, {8, 0, 0}),
    make("StackedDrg512MiBV1", 2, api_version::v1_0, 512 * MiB, 2, 1, 2, {8, 0, 0}),
    make("StackedDrg32GiBV1", 3, api_version::v1_0, 32 * GiB, 11, 10, 176, {8, 8, 0}),
    make("StackedDrg64GiBV1", 4, api_version::v1_0, 64 * GiB, 11, 10, 176, {8, 8, 2}),
    make("StackedDrg2KiBV1_1", 5, api_version::v1_1, 2 * KiB, 2, 1, 2, {8, 0, 0}),
    make("StackedDrg8MiBV1_1", 6, api_version::v1_1, 8 * MiB, 2, 1, 2, {8, 0, 0}),
    make("StackedDrg512MiBV1_1", 7, api_version::v1_1, 512 * MiB, 2, 1, 2, {8, 0, 0}),
    make("StackedDrg32GiBV1_1", 8, api_version::v1_1, 32 * GiB, 11, 10, 176, {8, 8, 0}),
    make("StackedDrg64GiBV1_1", 9, api_version::v1_1, 64 * GiB, 11, 10, 176, {8, 8, 2}),
    make("StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 10, api_version::v1_1, 2 * KiB, 2, 1, 2, {8, 0, 0}, true),
    make("StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 11, api_version::v1_1, 8 * MiB, 2, 1, 2, {8, 0, 0}, true),
    make("StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 12, api_version::v1_1, 512 * MiB, 2, 1, 2, {8, 0, 0}, true),
    make("StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 13, api_version::v1_1, 32 * GiB, 11, 10, 176, {8, 8, 0}, true),
    make("StackedDrg64GiBV1_1_Feat_SyntheticPoRep", 14, api_version::v1_1, 64 * GiB, 11, 10, 176, {8, 8, 2}, true),
};

unsigned log_exact(uint64_t n, unsigned arity) {
    unsigned bits = unsigned(std::countr_zero(arity));
    return unsigned(std::countr_zero(n)) / bits;
}

}  // namespace

graph::porep_id_t registered_proof::porep_id() const { return graph::porep_id_of(id); }

unsigned registered_proof::tree_d_height() const { return unsigned(std::countr_zero(nodes)); }

unsigned registered_proof::base_tree_height() const {
    uint64_t leaves = nodes;
    if (tree.sub) leaves /= tree.sub;
    if (tree.top) leaves /= tree.top;
    return log_exact(leaves, tree.base);
}

unsigned registered_proof::tree_c_path_levels() const {
    return base_tree_height() + (tree.sub ? 1 : 0) + (tree.top ? 1 : 0);
}

unsigned registered_proof::public_inputs_per_partition() const {
    return 3 + challenges_per_partition * (1 + drg_degree + expansion_degree + 3);
}

std::span<const registered_proof> all_registered_proofs() { return table; }

std::string registered_proof_names() {
    std::string out;
    for (const registered_proof& p : table) {
        if (!out.empty()) out += ", ";
        out += p.name;
    }
    return out;
}

const registered_proof& registered_proof_by_name(std::string_view name) {
    for (const registered_proof& p : table)
        if (p.name == name) return p;
    throw input_error("unknown registered proof '" + std::string(name) + "'; valid: " + registered_proof_names() +
                      " (the V1_2 non-interactive PoRep variants are not supported)");
}

const registered_proof& registered_proof_by_id(uint64_t id) {
    for (const registered_proof& p : table)
        if (p.id == id) return p;
    throw input_error("unknown registered seal proof id " + std::to_string(id) + "; valid: 0..14 (" +
                      registered_proof_names() + ")");
}

}  // namespace cuzk::porep
