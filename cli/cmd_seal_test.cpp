// cuzk seal-test --registered-proof NAME --out DIR: seals a random sector in memory (up to 8 MiB)
// and writes what C2 and verify-seal need: DIR/c1.json (SealCommitPhase1Output as filecoin-ffi
// writes it) and DIR/seal.json (registered proof, sector id, prover id, ticket, seed, comm_r,
// comm_d as the hex verify-seal takes). Values not given are drawn from --rng (text, default "cuzk").
// --synthetic writes only c1.json, of any size, without sealing (synthetic_c1.hpp): for benchmarks.
// --post-randomness HEX also writes each sector's WindowPoSt and WinningPoSt vanilla proofs of that
// randomness and DIR/post.json (seal_test_post.hpp); with --synthetic it writes only those, of any size,
// random and not a valid witness. --sectors N seals N sectors, numbered from --sector-id: the first in DIR
// as without it, the others in DIR/sector-<id>/.
// --update (with an update proof, StackedDrgUpdate2KiBV1 ...) writes a SnapDeals update's vanilla proofs instead
// (seal_test_update.hpp).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "cli/seal_test.hpp"
#include "cli/seal_test_post.hpp"
#include "cli/seal_test_update.hpp"
#include "common/c1/seal_commit_phase1.hpp"
#include "common/porep/c1_witness.hpp"
#include "common/porep/native_seal.hpp"
#include "common/porep/public_inputs.hpp"
#include "common/porep/sample_sector.hpp"
#include "common/porep/synthetic_c1.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {

std::array<uint8_t, 32> bytes_of(const ff::fr_t& x) {
    std::array<uint8_t, 32> b{};
    x.to_bytes_le(b.data());
    return b;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
    write_file_atomically(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

// Any size, no sealing: real shapes, challenges and parents, random Merkle siblings (see
// synthetic_c1.hpp). For benchmarks of parsing and synthesis only.
int write_synthetic(const porep::registered_proof& proof, const seal_test_options& o) {
    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) throw input_error("--out " + o.out + ": cannot create the directory: " + ec.message());
    const std::string json = c1::write_c1_json(porep::make_synthetic_c1(proof, o.rng));
    const auto path = std::filesystem::path(o.out) / "c1.json";
    write_text(path, json);
    std::fprintf(stderr,
                 "wrote %s (%zu bytes): a SYNTHETIC %s C1 for benchmarks. Its Merkle siblings are random, so its "
                 "witness does not satisfy the circuit and no valid proof can be made from it.\n",
                 path.string().c_str(), json.size(), std::string(proof.name).c_str());
    return exit_ok;
}

struct sealed_test_sector {
    nlohmann::ordered_json seal;
    porep::sealed_sector sector;
};

sealed_test_sector seal_one(const seal_test_options& o) {
    const porep::registered_proof& proof = porep::registered_proof_by_name(o.registered_proof);
    if (proof.nodes > porep::MAX_SAMPLE_NODES)
        throw input_error("--registered-proof: " + std::string(proof.name) +
                          " is too large to seal in memory; seal-test seals up to 8 MiB");
    // Deterministic from --rng: the same flags give the same sector.
    std::seed_seq seq(o.rng.begin(), o.rng.end());
    std::mt19937_64 rng(seq);
    auto random32 = [&rng] {
        std::array<uint8_t, 32> b{};
        for (auto& x : b) x = uint8_t(rng());
        return b;
    };
    std::array<uint8_t, 32> prover_id = o.prover_id.empty() ? random32() : parse_hex32("--prover-id", o.prover_id);
    std::array<uint8_t, 32> ticket = o.ticket.empty() ? random32() : parse_hex32("--ticket", o.ticket);
    std::array<uint8_t, 32> seed = o.seed.empty() ? random32() : parse_hex32("--seed", o.seed);
    std::vector<ff::fr_t> data(proof.nodes);
    for (ff::fr_t& d : data) d = ff::fr_t::random(rng);

    const auto graph = porep::graph_of(proof);
    std::array<uint8_t, 32> comm_d{};
    merkle::merkle_tree::sha256_binary(data).root().to_bytes_le(comm_d.data());
    const ff::fr_t replica_id = porep::generate_replica_id(prover_id, o.sector_id, ticket, comm_d, proof.porep_id());
    const porep::sealed_sector sector = porep::seal_sector(graph, proof.layers, proof.tree, replica_id, std::move(data));
    const c1::seal_commit_phase1_output c1 = porep::make_c1(proof, graph, sector, seed, ticket);

    std::error_code ec;
    std::filesystem::create_directories(o.out, ec);
    if (ec) throw input_error("--out " + o.out + ": cannot create the directory: " + ec.message());
    const std::string json = c1::write_c1_json(c1);
    const auto c1_path = std::filesystem::path(o.out) / "c1.json";
    write_file_atomically(c1_path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(json.data()), json.size()));

    nlohmann::ordered_json seal;
    seal["registered_proof"] = std::string(proof.name);
    seal["sector_id"] = o.sector_id;
    seal["prover_id"] = to_hex(prover_id);
    seal["ticket"] = to_hex(ticket);
    seal["seed"] = to_hex(seed);
    seal["comm_r"] = to_hex(bytes_of(sector.comm_r));
    seal["comm_d"] = to_hex(bytes_of(sector.comm_d));
    seal["replica_id"] = to_hex(bytes_of(sector.replica_id));
    const std::string seal_text = seal.dump(2) + "\n";
    write_file_atomically(std::filesystem::path(o.out) / "seal.json",
                          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(seal_text.data()), seal_text.size()));
    return {std::move(seal), std::move(sector)};
}

}  // namespace

nlohmann::ordered_json seal_test_sector(const seal_test_options& o) { return seal_one(o).seal; }

namespace {

// --synthetic --post-randomness: vanilla proofs of any size for timing, no sealing and no C1.
int write_synthetic_post(const porep::registered_proof& proof, const seal_test_options& o) {
    post_vanilla_writer post(proof, o.post_randomness, o.post_api_version, o.out, true);
    std::seed_seq seq(o.rng.begin(), o.rng.end());
    std::mt19937_64 rng(seq);
    for (unsigned i = 0; i < o.sectors; ++i) post.add_synthetic(o.sector_id + i, rng);
    std::printf("%s\n", post.finish().dump(2).c_str());
    std::fprintf(stderr,
                 "wrote %s/post.json and %u SYNTHETIC %s WindowPoSt vanilla proofs (and one WinningPoSt) for timing: "
                 "openings of a sparse random tree R, not of a sealed sector; they verify, but prove nothing about "
                 "any sector on chain.\n",
                 o.out.c_str(), o.sectors, std::string(proof.name).c_str());
    return exit_ok;
}

int run_seal_test(const seal_test_options& o) {
    if (o.sectors == 0) throw input_error("--sectors: at least 1");
    const bool post = !o.post_randomness.empty();
    if (o.synthetic) {
        const porep::registered_proof& proof = porep::registered_proof_by_name(o.registered_proof);
        if (post) return write_synthetic_post(proof, o);
        if (o.sectors != 1) throw input_error("--sectors: --synthetic writes one C1; several need --post-randomness");
        return write_synthetic(proof, o);
    }
    std::unique_ptr<post_vanilla_writer> writer;
    if (post)  // before sealing, so a bad randomness is refused at once
        writer = std::make_unique<post_vanilla_writer>(porep::registered_proof_by_name(o.registered_proof),
                                                       o.post_randomness, o.post_api_version, o.out, false);
    auto first = seal_one(o);
    if (writer) writer->add(o.sector_id, first.sector);
    for (unsigned i = 1; i < o.sectors; ++i) {
        // Another sector of the same prover: its own data, ticket and seed.
        seal_test_options other = o;
        other.sector_id = o.sector_id + i;
        other.out = (std::filesystem::path(o.out) / ("sector-" + std::to_string(other.sector_id))).string();
        other.rng = o.rng + "/sector-" + std::to_string(other.sector_id);
        other.prover_id = first.seal["prover_id"].get<std::string>();
        auto next = seal_one(other);
        if (writer) writer->add(other.sector_id, next.sector);
    }
    const auto c1_path = std::filesystem::path(o.out) / "c1.json";
    std::printf("%s\n", first.seal.dump(2).c_str());
    std::fprintf(stderr, "wrote %s (%ju bytes) and seal.json\n", c1_path.string().c_str(),
                 static_cast<std::uintmax_t>(std::filesystem::file_size(c1_path)));
    if (o.sectors > 1)
        std::fprintf(stderr, "sealed %u more sectors, %ju to %ju, in %s/sector-<id>/\n", o.sectors - 1,
                     static_cast<std::uintmax_t>(o.sector_id + 1),
                     static_cast<std::uintmax_t>(o.sector_id + o.sectors - 1), o.out.c_str());
    if (writer) {
        const auto j = writer->finish();
        std::fprintf(stderr,
                     "wrote %s/post.json and the WindowPoSt (%s) and WinningPoSt vanilla proofs of %u sectors\n",
                     o.out.c_str(), j["window_post"]["registered_proof"].get<std::string>().c_str(), o.sectors);
    }
    return exit_ok;
}

}  // namespace

void add_seal_test_command(CLI::App& app, action& run) {
    auto o = std::make_shared<seal_test_options>();
    auto u = std::make_shared<seal_test_update_options>();
    auto* cmd = app.add_subcommand("seal-test", "Seal a random test sector (<= 8 MiB) and write its C1 JSON");
    cmd->add_option("--registered-proof", o->registered_proof, "e.g. StackedDrg2KiBV1_1")->required();
    cmd->add_option("--out", o->out, "output directory (c1.json, seal.json)")->required();
    cmd->add_option("--seed", o->seed, "interactive seed, 32 bytes hex");
    cmd->add_option("--ticket", o->ticket, "ticket, 32 bytes hex");
    cmd->add_option("--prover-id", o->prover_id, "prover id, 32 bytes hex");
    cmd->add_option("--sector-id", o->sector_id, "sector number (default 1)");
    cmd->add_option("--rng", o->rng, "text seeding the data and the values not given (default \"cuzk\")");
    cmd->add_flag("--synthetic", o->synthetic,
                  "any size, no sealing: a C1 of the real shape whose witness is NOT satisfiable (benchmarks); with "
                  "--post-randomness only the PoSt vanilla proofs, as random");
    cmd->add_option("--post-randomness", o->post_randomness,
                    "also write each sector's WindowPoSt and WinningPoSt vanilla proofs of this randomness (32 bytes "
                    "hex, a canonical field element) and post.json");
    cmd->add_option("--post-api-version", o->post_api_version,
                    "WindowPoSt challenge rule: 1.2.0 (StackedDrgWindow*V1_1, default) or 1.0.0 (V1)");
    cmd->add_option("--sectors", o->sectors,
                    "seal N sectors numbered from --sector-id (default 1); the others go in DIR/sector-<id>/");
    cmd->add_flag("--update", u->update,
                  "with --registered-proof StackedDrgUpdate<size>V1: a SnapDeals update's vanilla proofs "
                  "(update-partition-<k>.bin, update.json) of a random sector, seeded by --seed TEXT (any text; "
                  "default --rng's); with --synthetic of any size");
    cmd->add_option("--h", u->h, "with --update: the h of the update (default the sector size's, 10 above 32 KiB)");
    cmd->callback([o, u, &run] {
        run = [o, u] {
            if (u->update) return run_seal_test_update(*o, *u);
            refuse_update_flags_without_update(*u);
            return run_seal_test(*o);
        };
    });
}

}  // namespace cuzk::cli
