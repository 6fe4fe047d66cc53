#include "daemon/params_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <system_error>

#include "common/porep/registered_proof.hpp"
#include "common/post/official_params.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/update/official_params.hpp"
#include "common/update/update_shape.hpp"
#include "common/util/errors.hpp"

namespace cuzk::daemon {

namespace {

constexpr std::string_view porep_prefix = "porep:";
constexpr std::string_view post_prefix = "post:";
constexpr std::string_view update_prefix = "update:";

// rust-fil-proofs names a circuit's parameters v28-<identifier's kind>-sha256_hasher-<sha256 of the identifier>;
// the identifier of a PoRep circuit holds the sector size and the tree shape, not porep_id (parameters.json at
// 87348a74, ../shared/reference/filecoin-porep.md).
struct published_porep {
    std::uint64_t sector_size;
    std::string_view digest;
};
constexpr std::array<published_porep, 5> published = {{
    {std::uint64_t(2) << 10, "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f"},
    {std::uint64_t(8) << 20, "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb"},
    {std::uint64_t(512) << 20, "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472"},
    {std::uint64_t(32) << 30, "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
    {std::uint64_t(64) << 30, "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"},
}};

std::string stem(const std::string& spec) {
    auto s = circuit_shape(spec);
    std::replace(s.begin(), s.end(), ':', '_');
    return s;
}

bool any_exists(const params_files& f) {
    std::error_code ec;
    return std::filesystem::exists(f.params, ec) || std::filesystem::exists(f.vk, ec);
}

}  // namespace

std::string circuit_shape(const std::string& spec) { return spec.substr(0, spec.find('@')); }

bool has_published_params(const std::string& spec) {
    return spec.starts_with(porep_prefix) || spec.starts_with(post_prefix) || spec.starts_with(update_prefix);
}

std::filesystem::path params_path(const std::filesystem::path& dir, const std::string& spec) {
    return dir / (stem(spec) + ".params");
}
std::filesystem::path vk_path(const std::filesystem::path& dir, const std::string& spec) {
    return dir / (stem(spec) + ".vk");
}

params_files official_params_files(const std::filesystem::path& dir, const std::string& spec) {
    const auto shape = circuit_shape(spec);
    if (shape.starts_with(post_prefix)) {
        const auto name = std::string_view(shape).substr(post_prefix.size());
        const auto* proof = post::find_registered_post_proof(name);
        if (!proof) (void)post::registered_post_proof_by_name(name);  // throws input_error naming the valid ones
        const auto stem = post::official_params_stem(*proof);
        return {dir / (stem + ".params"), dir / (stem + ".vk")};
    }
    if (shape.starts_with(update_prefix)) {
        const auto& proof =
            update::registered_update_proof_by_name(std::string_view(shape).substr(update_prefix.size()));
        const auto stem = update::official_params_stem(proof.shape());
        return {dir / (stem + ".params"), dir / (stem + ".vk")};
    }
    if (!shape.starts_with(porep_prefix)) return {};
    const auto& proof = porep::registered_proof_by_name(std::string_view(shape).substr(porep_prefix.size()));
    const auto it = std::find_if(published.begin(), published.end(),
                                 [&](const published_porep& p) { return p.sector_size == proof.sector_size; });
    if (it == published.end())  // every registered proof this build knows has a published set
        throw input_error(fmt::format("{}: no published parameters for sector size {}", shape, proof.sector_size));
    const auto name = fmt::format("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-{}-{}-{}-"
                                  "sha256_hasher-{}",
                                  proof.tree.base, proof.tree.sub, proof.tree.top, it->digest);
    return {dir / (name + ".params"), dir / (name + ".vk")};
}

params_files resolve_params_files(const std::filesystem::path& dir, const std::string& spec) {
    const params_files test{params_path(dir, spec), vk_path(dir, spec)};
    const auto shape = circuit_shape(spec);
    if (!has_published_params(shape)) return test;
    const auto official = official_params_files(dir, shape);
    if (any_exists(official)) return official;
    if (any_exists(test)) return test;
    // PoRep, PoSt and SnapDeals parameters are never made here (minutes and gigabytes for the real sizes, and a production
    // service must prove with the published ones).
    throw input_error(fmt::format(
        "no parameters for {}: neither {} (the published file, with its .vk: fetch it as Curio does, or point "
        "[gpud] params_dir at the FIL_PROOFS_PARAMETER_CACHE holding it) nor {} (test parameters from `cuzk setup "
        "--circuit {} --out {}`) exists",
        shape, official.params.string(), test.params.string(), shape, dir.string()));
}

}  // namespace cuzk::daemon
