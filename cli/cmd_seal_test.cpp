// cuzk seal-test --registered-proof NAME --out DIR: seals a random sector in memory (up to 8 MiB)
// and writes what C2 and verify-seal need: DIR/c1.json (SealCommitPhase1Output as filecoin-ffi
// writes it) and DIR/seal.json (registered proof, sector id, prover id, ticket, seed, comm_r,
// comm_d as the hex verify-seal takes). Values not given are drawn from --rng (text, default "cuzk").
// --synthetic writes only c1.json, of any size, without sealing (synthetic_c1.hpp): for benchmarks.
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

}  // namespace

nlohmann::ordered_json seal_test_sector(const seal_test_options& o) {
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
    return seal;
}

namespace {

int run_seal_test(const seal_test_options& o) {
    if (o.synthetic) return write_synthetic(porep::registered_proof_by_name(o.registered_proof), o);
    const auto seal = seal_test_sector(o);
    const auto c1_path = std::filesystem::path(o.out) / "c1.json";
    std::printf("%s\n", seal.dump(2).c_str());
    std::fprintf(stderr, "wrote %s (%ju bytes) and seal.json\n", c1_path.string().c_str(),
                 static_cast<std::uintmax_t>(std::filesystem::file_size(c1_path)));
    return exit_ok;
}

}  // namespace

void add_seal_test_command(CLI::App& app, action& run) {
    auto o = std::make_shared<seal_test_options>();
    auto* cmd = app.add_subcommand("seal-test", "Seal a random test sector (<= 8 MiB) and write its C1 JSON");
    cmd->add_option("--registered-proof", o->registered_proof, "e.g. StackedDrg2KiBV1_1")->required();
    cmd->add_option("--out", o->out, "output directory (c1.json, seal.json)")->required();
    cmd->add_option("--seed", o->seed, "interactive seed, 32 bytes hex");
    cmd->add_option("--ticket", o->ticket, "ticket, 32 bytes hex");
    cmd->add_option("--prover-id", o->prover_id, "prover id, 32 bytes hex");
    cmd->add_option("--sector-id", o->sector_id, "sector number (default 1)");
    cmd->add_option("--rng", o->rng, "text seeding the data and the values not given (default \"cuzk\")");
    cmd->add_flag("--synthetic", o->synthetic,
                  "any size, no sealing: a C1 of the real shape whose witness is NOT satisfiable (benchmarks)");
    cmd->callback([o, &run] { run = [o] { return run_seal_test(*o); }; });
}

}  // namespace cuzk::cli
