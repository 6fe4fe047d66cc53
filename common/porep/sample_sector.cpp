#include "common/porep/sample_sector.hpp"

#include <openssl/evp.h>

#include <random>
#include <stdexcept>
#include <string>

namespace cuzk::porep {

namespace {

std::mt19937_64 rng_from(std::string_view text) {
    uint8_t digest[32];
    if (EVP_Digest(text.data(), text.size(), digest, nullptr, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("sample sector: OpenSSL SHA256 failed");
    std::seed_seq seq(digest, digest + 32);
    return std::mt19937_64(seq);
}

bytes32 random_bytes(std::mt19937_64& rng) {
    bytes32 b{};
    for (auto& x : b) x = uint8_t(rng());
    return b;
}

sealed_sector seal_random(const registered_proof& proof, const graph::stacked_graph& graph, std::mt19937_64& rng,
                          const bytes32& prover_id, uint64_t sector_id, const bytes32& ticket) {
    std::vector<ff::fr_t> data(proof.nodes);
    for (ff::fr_t& d : data) d = ff::fr_t::random(rng);
    bytes32 comm_d{};
    merkle::merkle_tree::sha256_binary(data).root().to_bytes_le(comm_d.data());
    ff::fr_t replica_id = generate_replica_id(prover_id, sector_id, ticket, comm_d, proof.porep_id());
    return seal_sector(graph, proof.layers, proof.tree, replica_id, std::move(data));
}

}  // namespace

sample_sector make_sample_sector(const registered_proof& proof, std::string_view seed_text) {
    if (proof.nodes > MAX_SAMPLE_NODES)
        throw std::invalid_argument(std::string(proof.name) + ": sectors above 8 MiB are not sealed in memory");
    std::mt19937_64 rng = rng_from(seed_text);
    bytes32 prover_id = random_bytes(rng), ticket = random_bytes(rng), seed = random_bytes(rng);
    uint64_t sector_id = rng() % 1000000;
    graph::stacked_graph graph = graph_of(proof);
    sealed_sector sector = seal_random(proof, graph, rng, prover_id, sector_id, ticket);
    seal_public_inputs pub{sector.replica_id, sector.comm_d, sector.comm_r, seed};
    return sample_sector{&proof, std::move(graph), std::move(sector), prover_id, ticket, seed, sector_id, pub};
}

porep_partition_circuit sample_sector::partition_circuit(unsigned k) const {
    auto challenges = partition_challenges(*proof, public_inputs, k);
    return porep_partition_circuit(*proof, make_partition_witness(sector, graph, challenges),
                                   generate_public_inputs(*proof, graph, public_inputs, k));
}

}  // namespace cuzk::porep
