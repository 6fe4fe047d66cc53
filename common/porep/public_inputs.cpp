#include "common/porep/public_inputs.hpp"

#include <openssl/evp.h>

#include "common/porep/synthetic_challenges.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::porep {

namespace {

bytes32 sha256(const std::vector<uint8_t>& msg) {
    bytes32 out{};
    if (EVP_Digest(msg.data(), msg.size(), out.data(), nullptr, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("public inputs: OpenSSL SHA256 failed");
    return out;
}

void append(std::vector<uint8_t>& v, const uint8_t* p, size_t n) { v.insert(v.end(), p, p + n); }

// A 256-bit little-endian integer modulo m (m < 2^32): Horner over the 64-bit limbs, top first.
uint64_t mod_le256(const bytes32& bytes, uint64_t m) {
    unsigned __int128 r = 0;
    for (int limb = 3; limb >= 0; --limb) {
        uint64_t w = 0;
        for (int b = 7; b >= 0; --b) w = (w << 8) | bytes[size_t(limb) * 8 + size_t(b)];
        r = ((r << 64) | w) % m;
    }
    return uint64_t(r);
}

}  // namespace

ff::fr_t generate_replica_id(const bytes32& prover_id, uint64_t sector_id, const bytes32& ticket,
                             const bytes32& comm_d, const graph::porep_id_t& porep_id) {
    std::vector<uint8_t> msg;
    append(msg, prover_id.data(), 32);
    for (int i = 7; i >= 0; --i) msg.push_back(uint8_t(sector_id >> (8 * i)));
    append(msg, ticket.data(), 32);
    append(msg, comm_d.data(), 32);
    append(msg, porep_id.data(), 32);
    bytes32 h = sha256(msg);
    h[31] &= 0x3F;
    ff::fr_t out;
    ff::fr_t::from_bytes_le(h.data(), out);
    return out;
}

std::vector<uint64_t> derive_challenges(uint64_t nodes, unsigned per_partition, const ff::fr_t& replica_id,
                                        const bytes32& seed, unsigned partition) {
    if (nodes <= 2 || nodes > (uint64_t(1) << 32))
        throw std::invalid_argument("derive_challenges: " + std::to_string(nodes) + " nodes is outside (2, 2^32]");
    std::vector<uint64_t> out;
    out.reserve(per_partition);
    uint8_t id[32];
    replica_id.to_bytes_le(id);
    for (unsigned i = 0; i < per_partition; ++i) {
        uint32_t j = uint32_t(uint64_t(per_partition) * partition + i);
        std::vector<uint8_t> msg;
        append(msg, id, 32);
        append(msg, seed.data(), 32);
        for (int b = 0; b < 4; ++b) msg.push_back(uint8_t(j >> (8 * b)));
        out.push_back(mod_le256(sha256(msg), nodes - 1) + 1);
    }
    return out;
}

std::vector<uint64_t> partition_challenges(const registered_proof& proof, const seal_public_inputs& in,
                                           unsigned partition) {
    if (proof.synthetic)
        return synthetic_challenges::standard(proof.nodes, in.replica_id, in.comm_r)
            .partition_challenges(proof.challenges_per_partition, in.seed, partition);
    return derive_challenges(proof.nodes, proof.challenges_per_partition, in.replica_id, in.seed, partition);
}

graph::stacked_graph graph_of(const registered_proof& proof) {
    return graph::stacked_graph(proof.nodes, proof.porep_id(), proof.version);
}

std::vector<ff::fr_t> generate_public_inputs(const registered_proof& proof, const graph::stacked_graph& graph,
                                             const seal_public_inputs& in, unsigned partition) {
    if (partition >= proof.partitions)
        throw std::invalid_argument("generate_public_inputs: partition " + std::to_string(partition) + " of " +
                                    std::to_string(proof.partitions));
    if (graph.nodes() != proof.nodes)
        throw std::invalid_argument("generate_public_inputs: graph has " + std::to_string(graph.nodes()) +
                                    " nodes, " + std::string(proof.name) + " has " + std::to_string(proof.nodes));
    std::vector<ff::fr_t> inputs = {in.replica_id, in.comm_d, in.comm_r};
    inputs.reserve(proof.public_inputs_per_partition());
    std::array<uint32_t, graph::drg_degree> drg{};
    std::array<uint32_t, graph::expansion_degree> exp{};
    for (uint64_t c : partition_challenges(proof, in, partition)) {
        const ff::fr_t cf = ff::fr_t::from_u64(c);
        inputs.push_back(cf);  // tree D opening: the path bits packed are the leaf index
        graph.base_parents(c, drg);
        for (uint32_t p : drg) inputs.push_back(ff::fr_t::from_u64(p));
        graph.expanded_parents(c, exp);
        for (uint32_t p : exp) inputs.push_back(ff::fr_t::from_u64(p));
        inputs.push_back(cf);  // the challenge (UInt64)
        inputs.push_back(cf);  // tree R opening
        inputs.push_back(cf);  // tree C opening of the challenge's column
    }
    return inputs;
}

}  // namespace cuzk::porep
