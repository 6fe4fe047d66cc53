#include "cli/seal_test_update.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "common/update/sample_update.hpp"
#include "common/update/sparse_update.hpp"
#include "common/update/update_shape.hpp"
#include "common/update/vanilla_bincode.hpp"
#include "common/update/vanilla_encoding.hpp"
#include "common/update/vanilla_verify.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {

std::string hex_of(const ff::fr_t& x) {
    c1::domain_t d{};
    x.to_bytes_le(d.data());
    return c1::to_hex(d);
}

std::optional<unsigned> parse_h(const std::string& text, const update::update_shape& shape) {
    if (text.empty()) return std::nullopt;
    unsigned h = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), h);
    if (ec != std::errc() || end != text.data() + text.size())
        throw input_error(fmt::format("--h: '{}' is not a number; h is one of the sector size's allowed values "
                                      "(default {})",
                                      text, shape.h_default()));
    try {
        return update::sample_h(shape, h);
    } catch (const input_error& e) {
        throw input_error(fmt::format("--h: {}", e.what()));
    }
}

void refuse_porep_flags(const seal_test_options& o) {
    const auto refuse = [](bool given, const char* flag) {
        if (given)
            throw input_error(fmt::format("{}: not taken with --update (a SnapDeals sample has no ticket, prover, "
                                          "sector number or PoSt); drop it",
                                          flag));
    };
    refuse(!o.ticket.empty(), "--ticket");
    refuse(!o.prover_id.empty(), "--prover-id");
    refuse(o.sector_id != 1, "--sector-id");
    refuse(!o.post_randomness.empty(), "--post-randomness");
    refuse(o.post_api_version != "1.2.0", "--post-api-version");
    refuse(o.sectors != 1, "--sectors");
}

// Decodes what is about to be written and checks it as a service would: a failure is this tool's bug.
void check_written(const update::sample_update& s, const update::update_shape& shape,
                   const update::update_vanilla_shape& vshape, const std::vector<std::vector<uint8_t>>& files) {
    std::vector<std::span<const uint8_t>> spans(files.begin(), files.end());
    try {
        const auto decoded = update::decode_update_proofs(spans, vshape, "seal-test --update");
        update::verify_update_proofs(decoded, vshape, "seal-test --update");
        update::check_update_encoding(decoded, shape, {s.comm_r_old, s.comm_d_new, s.comm_r_new, s.h},
                                      "seal-test --update");
    } catch (const input_error& e) {
        throw std::logic_error(fmt::format("the generated update does not pass its own checks: {}", e.what()));
    }
}

}  // namespace

void refuse_update_flags_without_update(const seal_test_update_options& u) {
    if (!u.h.empty()) throw input_error("--h: only with --update (the h of a SnapDeals update)");
}

int run_seal_test_update(const seal_test_options& o, const seal_test_update_options& u) {
    refuse_porep_flags(o);
    const update::registered_update_proof& proof = update::registered_update_proof_by_name(o.registered_proof);
    const update::update_shape shape = proof.shape();
    const update::update_vanilla_shape vshape = update::update_vanilla_shape_of(proof.nodes());
    const std::optional<unsigned> h = parse_h(u.h, shape);
    if (!o.synthetic && proof.nodes() > update::MAX_SAMPLE_NODES)
        throw input_error(fmt::format("--registered-proof: {} is too large to build in memory; --update builds "
                                      "sectors up to 8 MiB, larger ones with --synthetic",
                                      proof.name));
    const std::string seed_text = o.seed.empty() ? o.rng : o.seed;

    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) throw input_error("--out " + o.out + ": cannot create the directory: " + ec.message());

    const update::sample_update s = o.synthetic ? update::make_synthetic_update(proof.nodes(), seed_text, h)
                                                : update::make_sample_update(proof.nodes(), seed_text, h);
    std::vector<std::vector<uint8_t>> files;
    for (const update::partition_proof& p : s.partitions) files.push_back(update::encode_partition_proof(p));
    check_written(s, shape, vshape, files);

    nlohmann::ordered_json j;
    j["registered_proof"] = std::string(proof.name);
    j["registered_proof_id"] = proof.id;
    j["abi_name"] = std::string(proof.abi_name);
    j["sector_size"] = proof.sector_size;
    j["seed"] = seed_text;
    j["synthetic"] = o.synthetic;
    if (o.synthetic)
        j["note"] = "SYNTHETIC update for timing: trees of periodic random data (each run of nodes sharing their top "
                    "h bits repeats 64 random labels and data values), not of a sealed sector; a valid witness "
                    "(the proofs verify and the encoding holds), of no sector on chain";
    j["h"] = s.h;
    j["comm_r_old"] = hex_of(s.comm_r_old);
    j["comm_d_new"] = hex_of(s.comm_d_new);
    j["comm_r_new"] = hex_of(s.comm_r_new);
    j["partitions"] = shape.partition_count;
    j["challenges_per_partition"] = shape.challenge_count;
    j["partition_proof_bytes"] = vshape.partition_proof_bytes();
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    for (size_t k = 0; k < files.size(); ++k) {
        const std::string name = fmt::format("update-partition-{}.bin", k);
        write_file_atomically(std::filesystem::path(o.out) / name, files[k]);
        names.push_back(name);
    }
    j["partition_proofs"] = std::move(names);
    const std::string text = j.dump(2) + "\n";
    write_file_atomically(std::filesystem::path(o.out) / "update.json",
                          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));

    std::printf("%s", text.c_str());
    std::fprintf(stderr, "wrote %s/update.json and %zu %s partition proofs (%ju bytes each, h = %u)%s\n",
                 o.out.c_str(), files.size(), std::string(proof.name).c_str(),
                 static_cast<std::uintmax_t>(vshape.partition_proof_bytes()), s.h,
                 o.synthetic ? ": SYNTHETIC, periodic random data of no sector on chain; a valid witness, for timing"
                             : "");
    return exit_ok;
}

}  // namespace cuzk::cli
