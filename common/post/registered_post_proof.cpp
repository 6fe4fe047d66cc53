#include "common/post/registered_post_proof.hpp"

#include <bit>

#include "common/util/errors.hpp"

namespace cuzk::post {

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

constexpr unsigned WINDOW_CHALLENGES = 10;   // WINDOW_POST_CHALLENGE_COUNT
constexpr unsigned WINNING_CHALLENGES = 66;  // WINNING_POST_CHALLENGE_COUNT
constexpr unsigned WINNING_SECTORS = 1;      // WINNING_POST_SECTOR_COUNT

// WINDOW_POST_SECTOR_COUNT: 2 for the test sizes; for 32 and 64 GiB the most sectors whose circuit fits one
// partition (constants.rs: 125,279,217 and 129,887,900 constraints).
constexpr unsigned window_sectors(uint64_t size) {
    return size == 32 * GiB ? 2349 : size == 64 * GiB ? 2300 : 2;
}

// Tree R of each size (filecoin-proofs SectorShape*): oct-trees, a sub level of 8 at 32 GiB, and a binary top
// over it at 64 GiB.
constexpr porep::tree_shape tree_of(uint64_t size) {
    return size == 32 * GiB ? porep::tree_shape{8, 8, 0}
           : size == 64 * GiB ? porep::tree_shape{8, 8, 2}
                              : porep::tree_shape{8, 0, 0};
}

constexpr registered_post_proof winning(std::string_view name, uint64_t id, uint64_t size) {
    return {name, name, id, post_kind::winning, graph::api_version::v1_0, size, size / 32,
            tree_of(size), WINNING_CHALLENGES, WINNING_SECTORS};
}

constexpr registered_post_proof window(std::string_view name, std::string_view api_name, uint64_t id,
                                       graph::api_version v, uint64_t size) {
    return {name, api_name, id, post_kind::window, v, size, size / 32, tree_of(size), WINDOW_CHALLENGES,
            window_sectors(size)};
}

using graph::api_version;
// filecoin-ffi maps the Go V1_1 Window proofs to the API's V1_2 ones (rust/src/proofs/types.rs): same circuit,
// challenge index n instead of sector_index * 10 + n.
constexpr registered_post_proof table[] = {
    winning("StackedDrgWinning2KiBV1", 0, 2 * KiB),
    winning("StackedDrgWinning8MiBV1", 1, 8 * MiB),
    winning("StackedDrgWinning512MiBV1", 2, 512 * MiB),
    winning("StackedDrgWinning32GiBV1", 3, 32 * GiB),
    winning("StackedDrgWinning64GiBV1", 4, 64 * GiB),
    window("StackedDrgWindow2KiBV1", "StackedDrgWindow2KiBV1", 5, api_version::v1_0, 2 * KiB),
    window("StackedDrgWindow8MiBV1", "StackedDrgWindow8MiBV1", 6, api_version::v1_0, 8 * MiB),
    window("StackedDrgWindow512MiBV1", "StackedDrgWindow512MiBV1", 7, api_version::v1_0, 512 * MiB),
    window("StackedDrgWindow32GiBV1", "StackedDrgWindow32GiBV1", 8, api_version::v1_0, 32 * GiB),
    window("StackedDrgWindow64GiBV1", "StackedDrgWindow64GiBV1", 9, api_version::v1_0, 64 * GiB),
    window("StackedDrgWindow2KiBV1_1", "StackedDrgWindow2KiBV1_2", 10, api_version::v1_2, 2 * KiB),
    window("StackedDrgWindow8MiBV1_1", "StackedDrgWindow8MiBV1_2", 11, api_version::v1_2, 8 * MiB),
    window("StackedDrgWindow512MiBV1_1", "StackedDrgWindow512MiBV1_2", 12, api_version::v1_2, 512 * MiB),
    window("StackedDrgWindow32GiBV1_1", "StackedDrgWindow32GiBV1_2", 13, api_version::v1_2, 32 * GiB),
    window("StackedDrgWindow64GiBV1_1", "StackedDrgWindow64GiBV1_2", 14, api_version::v1_2, 64 * GiB),
};

}  // namespace

unsigned registered_post_proof::circuit_sectors() const {
    return kind == post_kind::winning ? challenge_count / sector_count : sector_count;
}

unsigned registered_post_proof::circuit_challenges() const {
    return kind == post_kind::winning ? 1 : challenge_count;
}

unsigned registered_post_proof::base_tree_height() const {
    uint64_t leaves = nodes;
    if (tree.sub) leaves /= tree.sub;
    if (tree.top) leaves /= tree.top;
    return unsigned(std::countr_zero(leaves)) / unsigned(std::countr_zero(tree.base));
}

uint64_t registered_post_proof::public_inputs_per_partition() const {
    return uint64_t(circuit_sectors()) * (1 + circuit_challenges());
}

uint64_t registered_post_proof::partitions_for(uint64_t sectors) const {
    return sectors <= sector_count ? 1 : (sectors + sector_count - 1) / sector_count;
}

std::span<const registered_post_proof> all_registered_post_proofs() { return table; }

std::string registered_post_proof_names() {
    std::string out;
    for (const registered_post_proof& p : table) {
        if (!out.empty()) out += ", ";
        out += p.name;
    }
    return out;
}

const registered_post_proof* find_registered_post_proof(std::string_view name) {
    for (const registered_post_proof& p : table)
        if (p.name == name) return &p;
    for (const registered_post_proof& p : table)
        if (p.api_name == name) return &p;
    return nullptr;
}

const registered_post_proof& registered_post_proof_by_name(std::string_view name) {
    if (const registered_post_proof* p = find_registered_post_proof(name)) return *p;
    throw input_error("unknown registered PoSt proof '" + std::string(name) + "'; valid: " +
                      registered_post_proof_names() + " (or the proofs-api names, StackedDrgWindow*V1_2)");
}

const registered_post_proof& registered_post_proof_by_id(uint64_t id) {
    for (const registered_post_proof& p : table)
        if (p.id == id) return p;
    throw input_error("unknown registered PoSt proof id " + std::to_string(id) + "; valid: 0..14 (" +
                      registered_post_proof_names() + ")");
}

std::string_view api_version_text(graph::api_version v) {
    switch (v) {
        case api_version::v1_0: return "1.0.0";
        case api_version::v1_1: return "1.1.0";
        case api_version::v1_2: return "1.2.0";
    }
    return "?";
}

std::optional<graph::api_version> parse_api_version(std::string_view text) {
    for (api_version v : {api_version::v1_0, api_version::v1_1, api_version::v1_2})
        if (api_version_text(v) == text) return v;
    return std::nullopt;
}

}  // namespace cuzk::post
