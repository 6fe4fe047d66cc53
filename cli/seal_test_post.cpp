#include "cli/seal_test_post.hpp"

#include <fmt/format.h>

#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "common/post/challenges.hpp"
#include "common/post/vanilla_bincode.hpp"
#include "common/post/vanilla_generate.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {

graph::api_version window_version_of(std::string_view text) {
    if (text == "1.0.0") return graph::api_version::v1_0;
    if (text == "1.2.0") return graph::api_version::v1_2;
    throw input_error("--post-api-version: '" + std::string(text) +
                      "'; WindowPoSt has 1.0.0 (StackedDrgWindow*V1) and 1.2.0 (StackedDrgWindow*V1_1, what Curio "
                      "uses)");
}

// "2KiB", "32GiB": the size as the registered PoSt proof names spell it.
std::string size_label(uint64_t bytes) {
    if (bytes % (uint64_t(1) << 30) == 0) return fmt::format("{}GiB", bytes >> 30);
    if (bytes % (uint64_t(1) << 20) == 0) return fmt::format("{}MiB", bytes >> 20);
    return fmt::format("{}KiB", bytes >> 10);
}

}  // namespace

post_vanilla_writer::post_vanilla_writer(const porep::registered_proof& proof, std::string_view randomness_hex,
                                         std::string_view api_version, std::filesystem::path out, bool synthetic)
    : proof_(proof),
      randomness_(parse_hex32("--post-randomness", randomness_hex)),
      window_version_(window_version_of(api_version)),
      out_(std::move(out)),
      synthetic_(synthetic),
      window_shape_(post::vanilla_shape_of(proof.sector_size, post::WINDOW_POST_CHALLENGES)),
      winning_shape_(post::vanilla_shape_of(proof.sector_size, post::WINNING_POST_CHALLENGES)) {
    post::check_randomness(randomness_, "--post-randomness");
    std::error_code ec;
    std::filesystem::create_directories(out_ / "post", ec);
    if (ec) throw input_error("--out " + out_.string() + ": cannot create post/: " + ec.message());
}

void post_vanilla_writer::write(std::string_view kind, uint64_t sector_id, const std::vector<uint8_t>& bytes,
                                nlohmann::ordered_json& entry) {
    const std::string name = fmt::format("post/{}-{}.vanilla", kind, sector_id);
    write_file_atomically(out_ / name, bytes);
    entry[fmt::format("{}_vanilla", kind)] = name;
}

void post_vanilla_writer::add(uint64_t sector_id, const porep::sealed_sector& sector) {
    const uint64_t index = sectors_.size();
    const auto window = post::sector_challenges(window_version_, randomness_, sector_id, index,
                                                post::WINDOW_POST_CHALLENGES, window_shape_.leaves);
    // WinningPoSt proves one sector: index 0 under either rule.
    const auto winning = post::sector_challenges(graph::api_version::v1_0, randomness_, sector_id, 0,
                                                 post::WINNING_POST_CHALLENGES, winning_shape_.leaves);
    nlohmann::ordered_json entry;
    entry["sector_id"] = sector_id;
    c1::domain_t comm_r{};
    sector.comm_r.to_bytes_le(comm_r.data());
    entry["comm_r"] = c1::to_hex(comm_r);
    write("window", sector_id,
          post::encode_sector_proof(post::make_sector_proof(sector, window_shape_, sector_id, window)), entry);
    write("winning", sector_id,
          post::encode_sector_proof(post::make_sector_proof(sector, winning_shape_, sector_id, winning)), entry);
    sectors_.push_back(std::move(entry));
}

void post_vanilla_writer::add_synthetic(uint64_t sector_id, std::mt19937_64& rng) {
    const uint64_t index = sectors_.size();
    const auto window = post::sector_challenges(window_version_, randomness_, sector_id, index,
                                                post::WINDOW_POST_CHALLENGES, window_shape_.leaves);
    // The first sector also has a WinningPoSt proof: one sparse tree R opens both sets of leaves.
    const auto winning = index == 0 ? post::sector_challenges(graph::api_version::v1_0, randomness_, sector_id, 0,
                                                              post::WINNING_POST_CHALLENGES, winning_shape_.leaves)
                                    : std::vector<uint64_t>{};
    std::vector<uint64_t> opened(window.begin(), window.end());
    opened.insert(opened.end(), winning.begin(), winning.end());
    const post::sparse_tree_r tree(window_shape_, opened, rng);
    const ff::fr_t comm_c = ff::fr_t::random(rng);
    const auto proof = post::make_synthetic_sector_proof(window_shape_, sector_id, window, tree, comm_c);
    nlohmann::ordered_json entry;
    entry["sector_id"] = sector_id;
    entry["comm_r"] = c1::to_hex(proof.comm_r);
    write("window", sector_id, post::encode_sector_proof(proof), entry);
    entry["winning_vanilla"] = nullptr;
    if (index == 0) {
        // The same tree and comm_c as the WindowPoSt proof, so both name one sector.
        const auto w = post::make_synthetic_sector_proof(winning_shape_, sector_id, winning, tree, comm_c);
        write("winning", sector_id, post::encode_sector_proof(w), entry);
    }
    sectors_.push_back(std::move(entry));
}

nlohmann::ordered_json post_vanilla_writer::finish() {
    const std::string size = size_label(proof_.sector_size);
    nlohmann::ordered_json j;
    j["registered_proof"] = std::string(proof_.name);
    j["randomness"] = c1::to_hex(randomness_);
    j["synthetic"] = synthetic_;
    if (synthetic_)
        j["note"] = "SYNTHETIC vanilla proofs for timing: openings of a sparse random tree R (the challenged leaves, "
                    "random, with random siblings under one root), not of a sealed sector; they verify and their "
                    "circuit is satisfied, but they prove nothing about any sector on chain";
    j["window_post"] = {
        {"registered_proof",
         "StackedDrgWindow" + size + (window_version_ == graph::api_version::v1_2 ? "V1_1" : "V1")},
        {"api_version", window_version_ == graph::api_version::v1_2 ? "1.2.0" : "1.0.0"},
        {"challenges", post::WINDOW_POST_CHALLENGES}};
    j["winning_post"] = {{"registered_proof", "StackedDrgWinning" + size + "V1"},
                         {"challenges", post::WINNING_POST_CHALLENGES}};
    j["sectors"] = sectors_;
    const std::string text = j.dump(2) + "\n";
    write_file_atomically(out_ / "post.json",
                          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    return j;
}

}  // namespace cuzk::cli
