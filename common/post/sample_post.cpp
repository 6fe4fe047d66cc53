#include "common/post/sample_post.hpp"

#include <openssl/evp.h>

#include <stdexcept>
#include <string>

#include "common/post/fallback_witness.hpp"
#include "common/post/public_inputs.hpp"

namespace cuzk::post {

namespace {

std::mt19937_64 rng_from(std::string_view text) {
    uint8_t digest[32];
    if (EVP_Digest(text.data(), text.size(), digest, nullptr, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("sample PoSt: OpenSSL SHA256 failed");
    std::seed_seq seq(digest, digest + 32);
    return std::mt19937_64(seq);
}

domain_t bytes_of(const ff::fr_t& x) {
    domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

}  // namespace

sample_replica make_sample_replica(uint64_t nodes, const porep::tree_shape& shape, std::mt19937_64& rng) {
    std::vector<ff::fr_t> leaves(nodes);
    for (ff::fr_t& l : leaves) l = ff::fr_t::random(rng);
    merkle::merkle_tree tree = merkle::merkle_tree::poseidon(std::move(leaves), shape.base, shape.sub, shape.top);
    const ff::fr_t comm_c = ff::fr_t::random(rng);
    const ff::fr_t children[2] = {comm_c, tree.root()};
    const ff::fr_t comm_r = merkle::hash_node(merkle::hasher::poseidon, children);
    return sample_replica{std::move(tree), shape, comm_c, comm_r};
}

merkle_proof tree_r_proof(const merkle::merkle_tree& tree, const porep::tree_shape& shape, uint64_t leaf) {
    merkle_proof p;
    p.root = bytes_of(tree.root());
    p.leaf = bytes_of(tree.leaf(leaf));
    p.kind = shape.top ? c1::merkle_proof_kind::top : shape.sub ? c1::merkle_proof_kind::sub
                                                                : c1::merkle_proof_kind::single;
    const std::vector<merkle::path_level> levels = tree.proof(leaf);
    const size_t base_levels = levels.size() - (shape.sub ? 1 : 0) - (shape.top ? 1 : 0);
    for (size_t i = 0; i < levels.size(); ++i) {
        c1::path_element e;
        for (const ff::fr_t& s : levels[i].siblings) e.hashes.push_back(bytes_of(s));
        e.index = levels[i].index;
        (i < base_levels ? p.base_path : i == base_levels && shape.sub ? p.sub_path : p.top_path).push_back(std::move(e));
    }
    return p;
}

fallback_sector_proof vanilla_proof_of(const sample_replica& replica, uint64_t sector_id,
                                       std::span<const uint64_t> leaves) {
    fallback_sector_proof v;
    v.sector_id = sector_id;
    v.comm_r = bytes_of(replica.comm_r);
    sector_proof s;
    s.comm_c = bytes_of(replica.comm_c);
    s.comm_r_last = bytes_of(replica.tree_r.root());
    for (uint64_t leaf : leaves) s.inclusion_proofs.push_back(tree_r_proof(replica.tree_r, replica.shape, leaf));
    v.sectors.push_back(std::move(s));
    return v;
}

sample_post make_sample_post(const registered_post_proof& proof, std::string_view seed_text, unsigned sectors) {
    if (proof.nodes > MAX_SAMPLE_NODES)
        throw std::invalid_argument(std::string(proof.name) + ": sample trees above 8 MiB are not built in memory");
    if (sectors == 0 || sectors > proof.sector_count)
        throw std::invalid_argument(std::string(proof.name) + ": " + std::to_string(sectors) +
                                    " sample sectors; a partition has 1 to " + std::to_string(proof.sector_count));
    std::mt19937_64 rng = rng_from(seed_text);
    sample_post out;
    out.proof = &proof;
    for (auto& b : out.randomness) b = uint8_t(rng());
    out.randomness[31] &= 0x3f;
    uint64_t sector_id = rng() % 1000;
    for (unsigned i = 0; i < sectors; ++i) {
        sector_id += 1 + rng() % 1000;
        const sample_replica replica = make_sample_replica(proof.nodes, proof.tree, rng);
        out.vanilla.push_back(vanilla_proof_of(replica, sector_id, vanilla_challenges(proof, out.randomness, sector_id, i)));
    }
    return out;
}

post_partition_circuit sample_post::circuit() const {
    const std::vector<public_sector> sectors = circuit_public_sectors(*proof, public_sectors_of(vanilla));
    return post_partition_circuit(*proof, witness_of(*proof, vanilla),
                                  generate_public_inputs(*proof, randomness, sectors, 0));
}

}  // namespace cuzk::post
