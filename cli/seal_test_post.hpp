// The PoSt part of `cuzk seal-test --post-randomness HEX`: for each test sector, the WindowPoSt and WinningPoSt
// vanilla proofs of that randomness, as filecoin-ffi's GenerateSingleVanillaProof writes them (one bincode
// FallbackPoStSectorProof per sector, common/post/vanilla_bincode.hpp), and <out>/post.json listing them:
//   { "registered_proof": seal proof, "randomness": hex, "synthetic": bool, ["note": ...,]
//     "window_post": { "registered_proof": "StackedDrgWindow2KiBV1_1", "api_version": "1.2.0", "challenges": 10 },
//     "winning_post": { "registered_proof": "StackedDrgWinning2KiBV1", "challenges": 66 },
//     "sectors": [ { "sector_id", "comm_r" (hex as stored), "window_vanilla", "winning_vanilla" (paths
//                    relative to <out>; winning_vanilla null where none was written) } ] }
// Sectors must be added in ascending sector number: under API 1.0.0 a sector's challenges depend on its
// position in that order.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string_view>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/graph/api_version.hpp"
#include "common/porep/native_seal.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/post/vanilla_shape.hpp"

namespace cuzk::cli {

class post_vanilla_writer {
public:
    // Throws cuzk::input_error for a randomness that is not 32 bytes of hex or not a canonical field element,
    // an API version other than 1.0.0 (WindowPoSt V1) and 1.2.0 (V1_1), or an unwritable directory.
    post_vanilla_writer(const porep::registered_proof& proof, std::string_view randomness_hex,
                        std::string_view api_version, std::filesystem::path out, bool synthetic);

    // A sealed sector's proofs, built on its tree R.
    void add(uint64_t sector_id, const porep::sealed_sector& sector);
    // Random, well-shaped proofs (NOT a valid witness); the WinningPoSt one only for the first sector.
    void add_synthetic(uint64_t sector_id, std::mt19937_64& rng);

    // Writes <out>/post.json and returns it.
    nlohmann::ordered_json finish();

private:
    void write(std::string_view kind, uint64_t sector_id, const std::vector<uint8_t>& bytes,
               nlohmann::ordered_json& entry);

    const porep::registered_proof& proof_;
    c1::domain_t randomness_{};
    graph::api_version window_version_;
    std::filesystem::path out_;
    bool synthetic_;
    post::vanilla_shape window_shape_, winning_shape_;
    nlohmann::ordered_json sectors_ = nlohmann::ordered_json::array();
};

}  // namespace cuzk::cli
